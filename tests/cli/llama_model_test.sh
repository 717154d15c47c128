#!/usr/bin/env bash
# The Llama family through the CLI (--model, --no-rotary, --layers) against numpy: see
# llama_model_test.py. GPL-3.0-or-later.
set -euo pipefail
BIN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
/usr/bin/python3 "$HERE/llama_model_test.py" "$BIN" "$TMP"
