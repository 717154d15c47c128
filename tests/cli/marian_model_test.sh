#!/usr/bin/env bash
# Marian through the CLI (compute --target, translate) against numpy: see marian_model_test.py.
# GPL-3.0-or-later.
set -euo pipefail
BIN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
/usr/bin/python3 "$HERE/marian_model_test.py" "$BIN" "$TMP"
