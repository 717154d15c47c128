# AttnScope — the Python side of attn_model_run (tests/core/model_run_tool.cpp), shared by
# gpt2_reference_test.py, llama_reference_test.py and bert_reference_test.py: each is run as
#   X_reference_test.py RUN_TOOL
# and records its checks here; checked_run compares a run with numpy's. GPL-3.0-or-later.
import json
import subprocess
import sys

import numpy as np

TOOL = sys.argv[1]
failures = []


def check(cond, what):
    """Records a failure (and prints it) when COND is false."""
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(folder, ids, *args):
    """RUN_TOOL on FOLDER and IDS: (0, its JSON) or (exit code, its stderr)."""
    r = subprocess.run([TOOL, folder, ",".join(map(str, ids)), *args], capture_output=True,
                       text=True)
    return r.returncode, (json.loads(r.stdout) if r.returncode == 0 else r.stderr.strip())


def refused(name, folder, ids, *needles):
    """RUN_TOOL on FOLDER must fail (exit 1) with a message holding every one of NEEDLES."""
    code, out = run(folder, ids)
    ok = code == 1 and all(s in out for s in needles)
    check(ok, f"{name}: expected a refusal naming {needles}, got exit {code}: {str(out)[:300]}")
    if ok:
        print(f"{name}: refused: {out}")


def finish():
    """Ends the test: exit 1 when any check failed."""
    print(f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


def checked_run(name, folder, ids, args, reference, weights_tol=1e-5):
    """RUN_TOOL on FOLDER, IDS and ARGS against REFERENCE() = numpy's (weights, logits): every
    layer's weights to WEIGHTS_TOL (1e-5), the logits to 1e-4 relative (logits None: a folder without a head,
    which must give none). (weights, the tool's JSON), or None when the run failed."""
    code, out = run(folder, ids, *args)
    if code != 0:
        check(False, f"{name}: the run failed: {out}")
        return None
    ref_w, ref_logits = reference()
    got_w = np.array(out["weights"]).reshape(ref_w.shape)
    err_w = np.abs(got_w - ref_w).max()
    check(err_w <= weights_tol,
          f"{name}: attention weights differ by {err_w:.2e} (> {weights_tol:g})")
    if ref_logits is None:
        check(out["logits"] == [], f"{name}: a folder without the head must give no logits")
        print(f"{name}: weights max |diff| {err_w:.1e}, no logits (no head)")
        return got_w, out
    got_l = np.array(out["logits"])
    err_l = np.abs(got_l - ref_logits).max() / np.abs(ref_logits).max()
    check(err_l <= 1e-4, f"{name}: logits differ by {err_l:.2e} relative (> 1e-4)")
    print(f"{name}: weights max |diff| {err_w:.1e}, logits max rel diff {err_l:.1e}")
    return got_w, out


def refused(name, folder, ids, *needles):
    """RUN_TOOL on FOLDER must fail (exit 1) with a message holding every one of NEEDLES."""
    code, out = run(folder, ids)
    ok = code == 1 and all(s in out for s in needles)
    check(ok, f"{name}: expected a refusal naming {needles}, got exit {code}: {str(out)[:300]}")
    if ok:
        print(f"{name}: refused: {out}")
