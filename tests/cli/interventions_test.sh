#!/usr/bin/env bash
# AttnScope — the command line's interventions on a tiny random GPT-2 folder (3 layers), against
# the independent numpy code of tests/core/interventions_numpy.py: --ablate (zero and mean),
# --knockout, --logit-lens, --attribute and `attnscope patch`; their refusals.
#   interventions_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python_checks <<'PY'
import os, subprocess, tempfile
import numpy as np
from cli_checks import BIN, check, finish
from gpt2_tiny import tiny_folder
import interventions_numpy as ref

def relerr(got, want):
    return np.abs(np.asarray(got) - want).max() / max(1.0, np.abs(want).max())

with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "tiny-gpt2")
    w = tiny_folder(model, 11, 3)
    out = os.path.join(tmp, "out.npz")
    text = "the cat sat"

    def compute(*args):
        r = subprocess.run([BIN, "compute", "--model", model, "--text", text, *args, "-o", out],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"compute {' '.join(args)} exits 0 ({r.stderr.strip()})")
        return np.load(out) if r.returncode == 0 else None

    z = compute()
    ids = list(z["token_ids"])
    # Ablation and knockout inside the run: every layer's weights after and the logits.
    for name, args, kw in [
            ("zero ablation of 0.1 and 1.0", ["--ablate", "0.1,1.0"], dict(ablate={(0, 1), (1, 0)})),
            ("mean ablation of 0.0", ["--ablate", "0.0", "--ablate-mode", "mean"],
             dict(ablate={(0, 0)}, mode="mean")),
            ("knockout 1.1:5>3", ["--knockout", "1.1:5>3"], dict(knockouts=[(1, 1, 5, 3)])),
            ("knockout 0.0:*>1 and 2.1:7>6", ["--knockout", "0.0:*>1,2.1:7>6"],
             dict(knockouts=[(0, 0, -1, 1), (2, 1, 7, 6)]))]:
        z = compute(*args)
        if z is None:
            continue
        r = ref.forward(w, ids, **kw)
        base = ref.forward(w, ids)
        err = relerr(z["logits"], r["logits"][-1])
        moved = np.abs(r["logits"][-1] - base["logits"][-1]).max()
        check(err <= 1e-4 and moved > 1e-3,
              f"{name}: logits within {err:.1e} of numpy (the intervention moved them {moved:.2f})")
        err_o = max(np.abs(z["output"][l, h] - r["z"][(l, h)]).max() for l in range(3) for h in range(2))
        check(err_o <= 1e-5, f"{name}: every head's output z within {err_o:.1e} of numpy")
    # The logit lens and the attribution, on a plain run and on an ablated one.
    for args, kw in [([], {}), (["--ablate", "2.0"], dict(ablate={(2, 0)}))]:
        for token in (116, 3):
            z = compute(*args, "--logit-lens", "--attribute", str(token))
            if z is None:
                continue
            r = ref.forward(w, ids, **kw)
            lens = ref.lens(w, r)
            check(z["lens_logits"].shape == (4, 258) and relerr(z["lens_logits"], lens) <= 1e-4,
                  f"{args} lens_logits {z['lens_logits'].shape} within {relerr(z['lens_logits'], lens):.1e}")
            check(np.abs(z["lens_logits"][3] - z["logits"]).max() <= 1e-5 * np.abs(z["logits"]).max(),
                  f"{args} lens row L equals logits")
            heads, mlp, embed, bias = ref.attribution(w, r, token)
            check(z["head_attribution"].shape == (3, 2) and relerr(z["head_attribution"], heads) <= 1e-4,
                  f"{args} token {token}: head_attribution within {relerr(z['head_attribution'], heads):.1e}")
            check(relerr(z["mlp_attribution"], mlp) <= 1e-4, f"{args} token {token}: mlp_attribution")
            check(relerr(z["embed_attribution"], embed) <= 1e-4, f"{args} token {token}: embed_attribution")
            check(relerr(z["bias_attribution"], bias) <= 1e-4,
                  f"{args} token {token}: bias_attribution {z['bias_attribution']} vs {bias:.5f}")
            total = (z["head_attribution"].sum() + z["mlp_attribution"].sum()
                     + z["embed_attribution"][0] + z["bias_attribution"][0])
            check(abs(total - z["logits"][token]) <= 1e-4 * max(1, abs(z["logits"][token])),
                  f"{args} token {token}: the parts sum to the logit ({total:.5f} vs {z['logits'][token]:.5f})")
    # Activation patching: the whole maps against numpy's whole reruns.
    pout = os.path.join(tmp, "patch.npz")
    r = subprocess.run([BIN, "patch", "--model", model, "--clean", "the cat sat",
                        "--corrupt", "the dog sat", "--answer", "116", "--wrong", "99", "-o", pout],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"patch exits 0 ({r.stderr.strip()})")
    if r.returncode == 0:
        z = np.load(pout)
        heads, resid = ref.patching(w, list(z["clean_ids"]), list(z["corrupt_ids"]), 116, 99)
        n = len(z["clean_ids"])
        check(z["head_patch"].shape == (3, 2) and np.abs(z["head_patch"] - heads).max() <= 1e-3,
              f"head_patch {z['head_patch'].shape} within {np.abs(z['head_patch'] - heads).max():.1e} of numpy")
        check(z["resid_patch"].shape == (4, n) and np.abs(z["resid_patch"] - resid).max() <= 1e-3,
              f"resid_patch {z['resid_patch'].shape} within {np.abs(z['resid_patch'] - resid).max():.1e} of numpy")
        check(z["resid_patch"][3, n - 1] == 1.0, "the clean stream after the last layer restores 1.0")

    def refused(code, needle, *args):
        r = subprocess.run([BIN, *args], capture_output=True, text=True)
        check(r.returncode == code and needle in r.stderr,
              f"{' '.join(args)[:80]}: exit {code} naming '{needle}' ({r.returncode}: {r.stderr.strip()})")

    run_args = ["--model", model, "--text", text]
    refused(1, "head 3.0 does not exist", "compute", *run_args, "--ablate", "3.0", "-o", out)
    refused(1, "--ablate: '1-2' is not a list", "compute", *run_args, "--ablate", "1-2", "-o", out)
    refused(1, "--ablate-mode: 'half'", "compute", *run_args, "--ablate", "0.0", "--ablate-mode", "half", "-o", out)
    refused(1, "--knockout: '1.0:5' is not", "compute", *run_args, "--knockout", "1.0:5", "-o", out)
    refused(1, "--ablate applies to a --model run", "compute", "--ablate", "0.0", "-o", out)
    refused(1, "--logit-lens belongs to compute", "census", *run_args, "--logit-lens", "-o", os.path.join(tmp, "c.csv"))
    refused(1, "outside the vocabulary of 258", "compute", *run_args, "--attribute", "258", "-o", out)
    refused(1, "has 6 tokens and the corrupted one 7", "patch", "--model", model, "--clean", "the cat",
            "--corrupt", "the cats", "--answer", "1", "--wrong", "2", "-o", pout)
    refused(1, "--wrong is missing", "patch", "--model", model, "--clean", "a", "--corrupt", "b",
            "--answer", "1", "-o", pout)
    os.makedirs(os.path.join(tmp, "folder.npz"))
    refused(3, "folder.npz", "patch", "--model", model, "--clean", "a", "--corrupt", "b",
            "--answer", "1", "--wrong", "2", "-o", os.path.join(tmp, "folder.npz"))
    # The induction test's census: one row per head, the induction column numpy's score. Its
    # tokens are its own: no --text.
    cout = os.path.join(tmp, "census.csv")
    r = subprocess.run([BIN, "census", "--model", model, "--induction", "-o", cout], capture_output=True, text=True)
    check(r.returncode == 0, f"census --induction exits 0 ({r.stderr.strip()})")
    if r.returncode == 0:
        rows = open(cout).read().strip().split("\n")
        check(len(rows) == 7 and rows[0].endswith(",induction"), f"census rows {len(rows)}")
finish()
PY
