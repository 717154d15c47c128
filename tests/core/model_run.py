# AttnScope — the Python side of attn_model_run (tests/core/model_run_tool.cpp), shared by
# gpt2_reference_test.py, llama_reference_test.py and bert_reference_test.py: each is run as
#   X_reference_test.py RUN_TOOL
# and records its checks here. GPL-3.0-or-later.
import json
import subprocess
import sys

TOOL = sys.argv[1]
failures = []


def check(cond, what):
    """Records a failure (and prints it) when COND is false."""
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(folder, ids, *args):
    """RUN_TOOL on FOLDER and IDS: (0, its JSON) or (exit code, its stderr)."""
    r = subprocess.run([TOOL, folder, ",".join(map(str, ids)), *args], capture_output=True, text=True)
    return r.returncode, (json.loads(r.stdout) if r.returncode == 0 else r.stderr.strip())


def finish():
    """Ends the test: exit 1 when any check failed."""
    print(f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)
