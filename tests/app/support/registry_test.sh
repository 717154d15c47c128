#!/usr/bin/env bash
# app_tests lists exactly the tests/app/*_test.cpp files (plus the recovery test's second
# instance), refuses an unknown name, and runs a named test. Arguments: APP_TESTS TESTS_APP_DIR.
set -euo pipefail
bin="$1" dir="$2"
want="$( (cd "$dir" && ls ./*_test.cpp | sed 's|^\./||; s|\.cpp$||'; echo autosave_instance) | sort)"
got="$("$bin" --list | sort)"
if [ "$want" != "$got" ]; then
  echo "FAIL: app_tests --list differs from the test files:"; diff <(echo "$want") <(echo "$got") || true
  exit 1
fi
if out="$("$bin" no_such_test 2>&1)"; then echo "FAIL: an unknown test name passed"; exit 1; fi
grep -q "no test named no_such_test" <<<"$out" || { echo "FAIL: unknown name said: $out"; exit 1; }
"$bin" scene_test -silent >/dev/null || { echo "FAIL: app_tests scene_test failed"; exit 1; }
echo "registry: $(wc -l <<<"$got") entries, each a test file"
