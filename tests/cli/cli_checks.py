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


def run_measured(args, env=None):
    """Runs ARGS; returns (exit code or −signal, stderr, its peak resident memory in bytes), the
    peak of that one process (os.wait4), so a refusal can be shown to come before the work."""
    import os
    import subprocess
    import tempfile
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        return p.returncode, err.read().decode(errors="replace"), usage.ru_maxrss * 1024
