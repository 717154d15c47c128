#!/usr/bin/env bash
# AttnScope — `attnscope compute --model DIR --text …` on a tiny random GPT-2 folder (weights,
# config and a byte-level vocabulary with two merges), against the numpy GPT-2 of
# tests/core/gpt2_tiny.py: token ids, every layer's weights (1e-5) and the logits (1e-4 rel),
# with GPT-2's settings and with --no-scale --temperature 3 applied inside the run.
#   gpt2_model_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_numpy
BIN=$1
exec /usr/bin/python3 - "$BIN" "$(cd "$(dirname "$0")/../core" && pwd)" <<'PY'
import json, os, subprocess, sys, tempfile
import numpy as np
sys.path.insert(0, sys.argv[2])
from gpt2_tiny import reference, tiny_folder

BIN = sys.argv[1]
failures = []

def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)

with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "tiny-gpt2")
    w = tiny_folder(model)
    # "the cat": "the" → t + he (merge 1); " cat" → Ġ c a t (no merge applies).
    ids = [ord("t"), 256, 32, ord("c"), ord("a"), ord("t")]
    for name, args, ref in [("GPT-2's settings", [], {}),
                            ("--no-scale --temperature 3 inside the run",
                             ["--no-scale", "--temperature", "3"],
                             dict(scale=False, temperature=3.0)),
                            ("--no-scale --layers 1: layer 1 and the logits change, not layer 0",
                             ["--no-scale", "--layers", "1"], dict(scale=False, layers=[1])),
                            ("--temperature 2 --layers 0,1",
                             ["--temperature", "2", "--layers", "0,1"],
                             dict(temperature=2.0, layers=[0, 1]))]:
        out = os.path.join(tmp, "out.npz")
        r = subprocess.run([BIN, "compute", "--model", model, "--text", "the cat", *args,
                            "-o", out], capture_output=True, text=True)
        check(r.returncode == 0, f"{name}: compute exits 0 ({r.stderr.strip()})")
        if r.returncode:
            continue
        z = np.load(out)
        check(z["token_ids"].dtype == np.int32 and list(z["token_ids"]) == ids,
              f"{name}: token_ids {list(z['token_ids'])} == {ids}")
        check(list(z["q_tokens"]) == ["t", "he", " ", "c", "a", "t"],
              f"{name}: tokens as text {list(z['q_tokens'])}")
        ref_o = []
        ref_w, ref_logits = reference(w, ids, outputs=ref_o, **ref)
        err_w = np.abs(z["weights"] - ref_w).max()
        err_l = np.abs(z["logits"] - ref_logits).max() / np.abs(ref_logits).max()
        check(z["weights"].shape == ref_w.shape and err_w <= 1e-5,
              f"{name}: weights {z['weights'].shape} within {err_w:.1e} of numpy")
        check(err_l <= 1e-4, f"{name}: logits within {err_l:.1e} (relative) of numpy")
        check({"raw", "scaled", "masked", "weights", "output"} <= set(z.files),
              f"{name}: stages {sorted(z.files)}")
        err_o = np.abs(z["output"] - np.array(ref_o)).max()
        check(z["output"].shape == (2, 2, 6, 4) and err_o <= 1e-5,
              f"{name}: output (α·V) {z['output'].shape} within {err_o:.1e} of numpy")
        if args[-2:] == ["--layers", "1"]:
            base_w, base_logits = reference(w, ids)
            check(np.abs(z["weights"][0] - base_w[0]).max() < 1e-6
                  and np.abs(z["weights"][1] - base_w[1]).max() > 1e-3
                  and np.abs(z["logits"] - base_logits).max() > 1e-3,
                  f"{name}: scope kept to layer 1 and after")
    r = subprocess.run([BIN, "compute", "--model", os.path.join(tmp, "nowhere"), "--text", "x",
                        "-o", os.path.join(tmp, "x.npz")], capture_output=True, text=True)
    check(r.returncode == 2 and "config.json" in r.stderr,
          f"a missing folder is an input error naming config.json ({r.returncode}: {r.stderr.strip()})")
    for bad, needle in [(["--layers", "2"], "--layers: 2 is out of range (the model has 2 layers"),
                        (["--layers", "1,x"], "--layers: '1,x' is not a list")]:
        r = subprocess.run([BIN, "compute", "--model", model, "--text", "the cat", *bad,
                            "-o", os.path.join(tmp, "x.npz")], capture_output=True, text=True)
        check(r.returncode == 1 and needle in r.stderr,
              f"{' '.join(bad)} is a usage error ({r.returncode}: {r.stderr.strip()})")
    r = subprocess.run([BIN, "compute", "--text", "the cat", "--layers", "1",
                        "-o", os.path.join(tmp, "x.npz")], capture_output=True, text=True)
    check(r.returncode == 1 and "--model" in r.stderr,
          f"--layers without --model is a usage error ({r.returncode}: {r.stderr.strip()})")
sys.exit(1 if failures else 0)
PY
