#!/usr/bin/env bash
# mixtral through the CLI (compute --model, controls inside the run) against numpy: see
# decoders_model_test.py. GPL-3.0-or-later.
set -euo pipefail
BIN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
/usr/bin/python3 "$HERE/decoders_model_test.py" mixtral "$BIN" "$TMP"
