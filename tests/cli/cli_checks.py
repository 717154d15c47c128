# AttnScope — what the CLI tests' Python halves share (lib.sh's python_checks runs them with this
# folder and tests/core on sys.path): the attnscope binary, check() and finish().
# GPL-3.0-or-later.
import sys

BIN = sys.argv[1]
failures = []


def check(cond, what):
    """Records a check: "ok: WHAT", or "FAIL: WHAT" and a failure."""
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def finish():
    """Ends the test: exit 1 when any check failed."""
    print(f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)
