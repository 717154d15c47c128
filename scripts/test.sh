#!/usr/bin/env bash
# Command 2: install what is missing, build, and run every test; exits non-zero on any failure.
#   1. Release build: core (GoogleTest), app (QtTest, offscreen), CLI tests; benchmarks built.
#   2. core again under AddressSanitizer + UndefinedBehaviorSanitizer.
#   3. libFuzzer harnesses (clang-14), each run for a bounded time.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
attn_install_missing
export QT_QPA_PLATFORM=offscreen

echo "== release build"
attn_build "$BUILD_DIR"
ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 600 -j "$JOBS"

echo "== core under ASan + UBSan"
attn_build "$ROOT/build/asan" -DATTN_SANITIZE=ON -DATTN_BUILD_APP=OFF -DATTN_BUILD_BENCH=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$ROOT/build/asan" --output-on-failure --timeout 900 -j "$JOBS"

if [ -f "$ROOT/tests/fuzz/CMakeLists.txt" ] && grep -q add_executable "$ROOT/tests/fuzz/CMakeLists.txt"; then
  echo "== fuzzers (bounded runs)"
  attn_build "$ROOT/build/fuzz" -DATTN_FUZZ=ON -DATTN_BUILD_APP=OFF -DATTN_BUILD_BENCH=OFF \
    -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo
  ctest --test-dir "$ROOT/build/fuzz" --output-on-failure --timeout 600
fi
echo "== all tests passed"
