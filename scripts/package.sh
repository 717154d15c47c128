#!/usr/bin/env bash
# Builds a portable Release (no -march=native) in build/package and packs it into a .deb with
# CPack; Depends come from dpkg-shlibdeps. Prints the package's fields and contents.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
attn_install_missing
PKG_DIR="$ROOT/build/package"
attn_configure "$PKG_DIR" -DATTN_NATIVE=OFF -DATTN_BUILD_TESTS=OFF -DATTN_BUILD_BENCH=OFF \
  -DCMAKE_INSTALL_PREFIX=/usr
cmake --build "$PKG_DIR" --parallel "$JOBS"
(cd "$PKG_DIR" && cpack -G DEB)
deb=$(ls -t "$PKG_DIR"/attnscope_*.deb | head -n 1)
dpkg-deb -I "$deb"
dpkg-deb -c "$deb"
echo "== $deb"
