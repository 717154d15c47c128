#!/usr/bin/env bash
# Gemma 2 and Gemma 3 text with the real Gemma 3 tokenizer.json through the CLI, against the
# tokenizers library and numpy: see gemma_tokenizer_test.py. GPL-3.0-or-later.
set -euo pipefail
BIN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
NPM=${ATTN_NPM_REFERENCES:?set by tests/cli/CMakeLists.txt: where scripts/npm_references.sh installs}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
/usr/bin/python3 "$HERE/gemma_tokenizer_test.py" "$BIN" "$TMP" "$NPM"
