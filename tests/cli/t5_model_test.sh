#!/usr/bin/env bash
# T5 through the CLI (compute --target, translate, --scale) against numpy: see t5_model_test.py.
# GPL-3.0-or-later.
set -euo pipefail
BIN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
/usr/bin/python3 "$HERE/t5_model_test.py" "$BIN" "$TMP"
