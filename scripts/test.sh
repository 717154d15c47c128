#!/usr/bin/env bash
# Command 2: install what is missing, build, and run every test; exits non-zero on any failure.
#   1. build/release, the package's configuration (portable: -DATTN_NATIVE=OFF), the tree
#      scripts/run.sh builds and launches: core (GoogleTest), app (QtTest, offscreen), CLI,
#      Python and install tests, the benchmarks' smoke runs.
#   2. core tests again under AddressSanitizer + UndefinedBehaviorSanitizer, compiled by clang
#      with -march=native (this CPU's instruction set, the other code generation core's numbers
#      can see), and the libFuzzer harnesses each run for a bounded time: one build for all three.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
attn_install_missing
attn_install_npm_references
export QT_QPA_PLATFORM=offscreen

echo "== release build (portable, the package's configuration): every test"
attn_build "$BUILD_DIR"
ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 300 -j "$JOBS"

echo "== core tests under ASan + UBSan at -march=native, and the libFuzzer harnesses (clang-14)"
# -O1 without NDEBUG keeps Eigen's bounds assertions on. The run-time dispatched vector kernels
# are compiled for every instruction set under clang too (core/src/simd/target_region.hpp), so
# the sanitizers run the AVX2 and AVX-512 copies this CPU has (SimdIsa.* fails otherwise).
attn_build "$ROOT/build/sanitize" -DATTN_SANITIZE=ON -DATTN_FUZZ=ON -DATTN_NATIVE=ON \
  -DATTN_BUILD_APP=OFF -DATTN_BUILD_BENCH=OFF -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_CXX_FLAGS_RELEASE=-O1
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$ROOT/build/sanitize" --output-on-failure --timeout 300 -j "$JOBS"
echo "== all tests passed"
