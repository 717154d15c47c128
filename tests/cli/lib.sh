# Shared helpers of the CLI tests (sourced). Usage of every test: bash X_test.sh ATTNSCOPE FIXTURES
set -uo pipefail
BIN="${1:?usage: $0 ATTNSCOPE FIXTURES_DIR}"
FIX="${2:?usage: $0 ATTNSCOPE FIXTURES_DIR}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ -x "$BIN" ] || { echo "FAIL: $BIN is not an executable" >&2; exit 1; }
[ -d "$FIX" ] || { echo "FAIL: fixtures folder $FIX is missing" >&2; exit 1; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
FAILS=0
CHECKS=0

# require_tools CMD…: a check that cannot run fails (scripts/common.sh installs every tool).
require_tools() {
  local t
  for t in "$@"; do
    command -v "$t" >/dev/null 2>&1 || { echo "FAIL: '$t' is not installed; scripts/common.sh installs it" >&2; exit 1; }
  done
}
# require_numpy: the independent numeric references are Debian's python3 with numpy.
require_numpy() {
  /usr/bin/python3 -c "import numpy" 2>/dev/null ||
    { echo "FAIL: /usr/bin/python3 has no numpy (Debian python3-numpy); scripts/common.sh installs it" >&2; exit 1; }
}

require_tools file xmllint pdfinfo

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
pass() { CHECKS=$((CHECKS + 1)); }

# expect_rc CODE DESCRIPTION -- command…: runs the command, checks its exit code.
# Leaves stdout in $TMP/out and stderr in $TMP/err.
expect_rc() {
  local want="$1" what="$2"; shift 3
  "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    fail "$what: exit $rc, expected $want; stderr: $(head -c 400 "$TMP/err")"
    return 1
  fi
  pass
}

expect_err() {  # expect_err SUBSTRING DESCRIPTION
  if ! grep -qF -- "$1" "$TMP/err"; then
    fail "$2: stderr lacks '$1': $(head -c 400 "$TMP/err")"
    return 1
  fi
  pass
}

# png_size FILE → "W x H" from file(1)
png_size() { file -b "$1" | sed -n 's/^PNG image data, \([0-9]*\) x \([0-9]*\),.*/\1x\2/p'; }

check_png() {  # check_png FILE WxH
  local got; got="$(png_size "$1")"
  if [ "$got" != "$2" ]; then fail "$1: PNG size '$got', expected $2"; return 1; fi
  pass
}

check_pdf() {  # check_pdf FILE PAGES
  local pages; pages="$(pdfinfo "$1" 2>/dev/null | sed -n 's/^Pages: *//p')"
  if [ "$pages" != "$2" ]; then fail "$1: $pages PDF pages, expected $2"; return 1; fi
  pass
}

check_svg() {  # check_svg FILE
  if ! xmllint --noout "$1" 2>"$TMP/xml"; then fail "$1: SVG does not parse: $(head -c 300 "$TMP/xml")"; return 1; fi
  if ! grep -q "<svg" "$1"; then fail "$1: no <svg> element"; return 1; fi
  pass
}

finish() {
  echo "$CHECKS checks passed, $FAILS failed"
  [ "$FAILS" -eq 0 ]
  exit $?
}

# python_checks: runs the Python test on stdin with ATTNSCOPE as its argument, numpy required, and
# this folder (cli_checks.py: BIN, check, finish) and tests/core (the tiny models, the numpy
# references) importable. Not exec'd, so the EXIT trap still removes $TMP.
python_checks() {
  require_numpy
  PYTHONPATH="$HERE:$(cd "$HERE/../core" && pwd)" /usr/bin/python3 - "$BIN"
}
