#!/usr/bin/env bash
# AttnScope — a tokenizer.json tokenizer in core against Hugging Face's own tokenizers library
# (npm @anush008/tokenizers): the same token ids and the same decoded text for every string of
# tests/data/tokenizer_corpus.json and for the whole corpus joined into one long text.
#   hf_tokenizer_reference_test.sh TOOL NPM_DIR NAME   (NAME: see hf_tokenizer_variants.py)
# NAME gguf-MODEL (llama3, qwen3, llama2, gemma3): core reads instead the tokenizer a GGUF file embeds,
# its metadata made from MODEL's real tokenizer.json by gguf_tiny.py (tokenizer.ggml.model gpt2
# with merges and pre-tokenizer, or llama with SentencePiece scores), against the library on
# that tokenizer.json.
set -euo pipefail
tool=$1 npm=$2 name=$3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
corpus="$here/../data/tokenizer_corpus.json"
[ -f "$npm/.installed" ] || { echo "FAIL: the npm references are not installed in $npm (scripts/npm_references.sh)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/hf_tokenizer_variants.py" "$npm" "${name#gguf-}" "$work/tokenizer.json"
input="$work/tokenizer.json"
if [ "${name#gguf-}" != "$name" ]; then
  input="$work/tokenizer.gguf"
  /usr/bin/python3 "$here/gguf_tiny.py" tokenizer "$work/tokenizer.json" "$input"
fi
# The corpus, then all of it as one text (long text, many words: the BPE cache at work).
/usr/bin/python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); json.dump(c+["\n".join(c)*3], open(sys.argv[2],"w"))' \
  "$corpus" "$work/cases.json"
n=$(/usr/bin/python3 -c 'import json,sys; print(2*len(json.load(open(sys.argv[1]))))' "$work/cases.json")
node "$here/hf_tokenizer_reference.js" "$npm" "$work/tokenizer.json" "$work/cases.json" >"$work/hf.txt"
"$tool" "$input" "$work/cases.json" >"$work/core.txt"
[ "$(wc -l <"$work/hf.txt")" -eq "$n" ] || { echo "FAIL: the reference printed $(wc -l <"$work/hf.txt") lines, not $n"; exit 1; }
if ! diff "$work/hf.txt" "$work/core.txt" >"$work/diff.txt"; then
  head -c 4000 "$work/diff.txt"
  echo "FAIL: $name: core's ids or decoded text differ from the tokenizers library's (< library, > core)"
  exit 1
fi
echo "$name: $((n / 2)) texts, the same ids and decoded text as Hugging Face's tokenizers library"
