# Shared set-up for scripts/run.sh and scripts/test.sh: install what is missing, configure, build.
# Sourced, not run. Idempotent: a second call with nothing changed installs nothing and builds
# nothing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${ATTN_BUILD_DIR:-$ROOT/build/release}"
# ccache (when installed: CMakeLists.txt uses it) keys files by paths relative to the clone, so
# a fresh clone elsewhere on a machine that built before reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
JOBS="${ATTN_JOBS:-$(nproc)}"

# Every Debian 12 package the build, the app and the tests need. The tests use all of them:
# numpy, networkx (attention flow) and unzip are the independent references of the CLI checks,
# poppler-utils reads back exported PDFs, dpkg-dev/file/appstream/desktop-file-utils check the
# install and the package.
ATTN_PACKAGES=(
  cmake ninja-build g++ pkg-config ccache git clang-format gzip
  clang-14 libclang-rt-14-dev
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libqcustomplot2.1-qt6 libgl-dev
  libeigen3-dev libopenblas-dev nlohmann-json3-dev libzip-dev zlib1g-dev
  googletest libgtest-dev libbenchmark-dev
  fonts-dejavu-core poppler-utils
  python3 python3-numpy python3-torch python3-networkx python3-sentencepiece unzip libxml2-utils file
  dpkg-dev appstream desktop-file-utils
  libpcre2-dev libicu-dev nodejs
  libsentencepiece-dev python3-sentencepiece
)

attn_as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

attn_install_missing() {
  local missing=()
  for p in "${ATTN_PACKAGES[@]}"; do
    if [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" != "installed" ]; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing: ${missing[*]}"
    attn_as_root apt-get update -qq
    attn_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}"
  fi
  # npm installs the tokenizer tests' references (scripts/npm_references.sh). Debian's nodejs
  # leaves it to its own package; a nodejs that bundles npm (and conflicts with that package)
  # already has it.
  if ! command -v npm >/dev/null; then
    echo "== installing: npm"
    attn_as_root apt-get update -qq
    attn_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm
  fi
}

# The npm packages the tokenizer reference tests compare against, in build/npm-references.
attn_install_npm_references() {
  bash "$ROOT/scripts/npm_references.sh" "$ROOT/build/npm-references"
}

# attn_build DIR [cmake options…]: configure, then build every target.
attn_build() {
  local dir="$1"; shift
  attn_configure "$dir" "$@"
  cmake --build "$dir" --parallel "$JOBS"
}

# attn_build_target DIR TARGET…: only those targets (and what they need) in DIR's configuration.
attn_build_target() {
  local dir="$1"; shift
  attn_configure "$dir"
  cmake --build "$dir" --parallel "$JOBS" --target "$@"
}

# attn_configure DIR [cmake options…]: configure DIR when it is new or its options changed.
# build/release is always the package's configuration (portable: -DATTN_NATIVE=OFF), the one
# scripts/run.sh launches and scripts/test.sh tests, so the two scripts share one tree: a tree
# configured by hand with other options gets these back.
attn_configure() {
  local dir="$1"; shift
  local options=(-G Ninja -DCMAKE_BUILD_TYPE=Release)
  [ "$dir" = "$BUILD_DIR" ] && options+=(-DATTN_NATIVE=OFF)
  options+=("$@")
  local stamp="$dir/.attn-configure-options"
  if [ ! -f "$dir/build.ninja" ] || [ "$(cat "$stamp" 2>/dev/null)" != "${options[*]}" ]; then
    cmake -S "$ROOT" -B "$dir" "${options[@]}"
    printf '%s' "${options[*]}" >"$stamp"
  fi
}
