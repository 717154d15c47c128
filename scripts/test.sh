#!/usr/bin/env bash
# Command 2: install what is missing, build, and run every test; exits non-zero on any failure.
#   1. Release build: core (GoogleTest), app (QtTest, offscreen), CLI tests; benchmarks built.
#   2. core tests again under AddressSanitizer + UndefinedBehaviorSanitizer, and the libFuzzer
#      harnesses (clang-14) each run for a bounded time — one clang build for both.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
attn_install_missing
export QT_QPA_PLATFORM=offscreen

echo "== release build"
attn_build "$BUILD_DIR"
ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 120 -j "$JOBS"

echo "== core tests under ASan + UBSan, and the libFuzzer harnesses (clang-14, bounded runs)"
# One clang build serves both: core is compiled once with the sanitizers (and fuzzer coverage);
# -O1 without NDEBUG keeps Eigen's bounds assertions on.
attn_build "$ROOT/build/sanitize" -DATTN_SANITIZE=ON -DATTN_FUZZ=ON -DATTN_BUILD_APP=OFF \
  -DATTN_BUILD_BENCH=OFF -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_CXX_FLAGS_RELEASE=-O1
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$ROOT/build/sanitize" --output-on-failure --timeout 120 -j "$JOBS"
echo "== all tests passed"
