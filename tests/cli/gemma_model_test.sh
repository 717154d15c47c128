#!/usr/bin/env bash
# The Gemma family through the CLI (compute --model, the softcapped stage, --no-softcap) against
# numpy: see gemma_model_test.py. GPL-3.0-or-later.
set -euo pipefail
BIN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
/usr/bin/python3 "$HERE/gemma_model_test.py" "$BIN" "$TMP"
