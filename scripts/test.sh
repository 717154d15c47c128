#!/usr/bin/env bash
# Command 2: install what is missing, build, and run every test; exits non-zero on any failure.
#   1. Portable Release build (-DATTN_NATIVE=OFF, the package's configuration): core
#      (GoogleTest), app (QtTest, offscreen), CLI tests; benchmarks built.
#   2. Native Release build (-march=native, what scripts/run.sh builds): the core tests again.
#   3. core tests again under AddressSanitizer + UndefinedBehaviorSanitizer, and the libFuzzer
#      harnesses (clang-14) each run for a bounded time — one clang build for both.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
attn_install_missing
attn_install_npm_references
export QT_QPA_PLATFORM=offscreen

# The whole suite runs in the configuration users get from the package, so that no test leans
# on the build machine's instruction set. Only core computes numbers whose code -march changes
# (Eigen's packets, the compiler's vectorisation; the run-time dispatched kernels are the same
# in both), so the native build runs the core tests alone: the full suite twice would double the
# app's build and its tests for nothing they can tell apart.
echo "== portable release build (-DATTN_NATIVE=OFF): every test"
attn_build "$ROOT/build/portable" -DATTN_NATIVE=OFF
ctest --test-dir "$ROOT/build/portable" --output-on-failure --timeout 120 -j "$JOBS"

echo "== native release build (-march=native): the core tests"
attn_configure "$BUILD_DIR" -DATTN_NATIVE=ON
cmake --build "$BUILD_DIR" --parallel "$JOBS" --target attn_core_checks
ctest --test-dir "$BUILD_DIR" -L core --output-on-failure --timeout 120 -j "$JOBS"

echo "== core tests under ASan + UBSan, and the libFuzzer harnesses (clang-14, bounded runs)"
# One clang build serves both: core is compiled once with the sanitizers (and fuzzer coverage);
# -O1 without NDEBUG keeps Eigen's bounds assertions on. The vector kernels are compiled for
# every instruction set under clang too (core/src/simd/target_region.hpp), so the sanitizers run
# the AVX2 and AVX-512 copies this CPU has (SimdIsa.* fails otherwise).
attn_build "$ROOT/build/sanitize" -DATTN_SANITIZE=ON -DATTN_FUZZ=ON -DATTN_BUILD_APP=OFF \
  -DATTN_BUILD_BENCH=OFF -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_CXX_FLAGS_RELEASE=-O1
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$ROOT/build/sanitize" --output-on-failure --timeout 120 -j "$JOBS"
echo "== all tests passed"
