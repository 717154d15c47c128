#!/usr/bin/env bash
# Command 1: install what is missing, build the app (only the app: no tests, no benchmarks), and
# launch it. Arguments go to the app: `scripts/run.sh FILE`, `scripts/run.sh --version`,
# `scripts/run.sh render FILE -o out.png`.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
attn_install_missing
attn_build_target "$BUILD_DIR" attnscope
exec "$BUILD_DIR/app/attnscope" "$@"
