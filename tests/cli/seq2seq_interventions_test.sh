#!/usr/bin/env bash
# Interventions on encoder–decoders through the CLI against numpy: see
# seq2seq_interventions_test.py. GPL-3.0-or-later.
set -euo pipefail
BIN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
/usr/bin/python3 "$HERE/seq2seq_interventions_test.py" "$BIN" "$TMP"
