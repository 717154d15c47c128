#!/usr/bin/env bash
# Command 1: install what is missing, build Release, launch AttnScope on its default scene.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
attn_install_missing
attn_build "$BUILD_DIR"
exec "$BUILD_DIR/app/attnscope" "$@"
