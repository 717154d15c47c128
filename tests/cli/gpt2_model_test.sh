#!/usr/bin/env bash
# AttnScope — `attnscope compute --model DIR --text …` on a tiny random GPT-2 folder (weights,
# config and a byte-level vocabulary with two merges), against the numpy GPT-2 of
# tests/core/gpt2_tiny.py: token ids, every layer's weights (1e-5) and the logits (1e-4 rel),
# with GPT-2's settings and with --no-scale --temperature 3 applied inside the run; --mask in
# each spelling; options, texts, heads and layers a model cannot take refused in every view.
#   gpt2_model_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python_checks <<'PY'
import json, os, subprocess, tempfile
import numpy as np
from cli_checks import BIN, check, finish
from gpt2_tiny import reference, tiny_folder

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
    # --mask however it is spelled is the parser's, not a search for the literal "--mask": each
    # spelling removes GPT-2's causal mask inside the run, as numpy's reference without it.
    ref_none, _ = reference(w, ids, mask=False)
    ref_causal, _ = reference(w, ids)
    for spelling in (["--mask=none"], ["-mask", "none"], ["--mask", "none"], ["-mask=none"]):
        out = os.path.join(tmp, "mask.npz")
        r = subprocess.run([BIN, "compute", "--model", model, "--text", "the cat", *spelling,
                            "-o", out], capture_output=True, text=True)
        check(r.returncode == 0, f"{' '.join(spelling)}: compute exits 0 ({r.stderr.strip()})")
        if r.returncode == 0:
            got = np.load(out)["weights"]
            check(np.abs(got - ref_none).max() <= 1e-5 and np.abs(got - ref_causal).max() > 1e-3,
                  f"{' '.join(spelling)}: the weights are numpy's without the causal mask")
    def refused(code, needle, *args):
        """`attnscope ARGS…` exits CODE naming NEEDLE."""
        r = subprocess.run([BIN, *args], capture_output=True, text=True)
        check(r.returncode == code and needle in r.stderr,
              f"{' '.join(a[:40] for a in args)}: exit {code} naming '{needle}' "
              f"({r.returncode}: {r.stderr.strip()})")

    x_npz, x_png = os.path.join(tmp, "x.npz"), os.path.join(tmp, "x.png")
    run_args = ["--model", model, "--text", "the cat"]
    # Options a model's run cannot honour, and an empty folder name, are refused, not ignored.
    refused(1, "--heads: not an option of a --model run", "compute", *run_args, "--heads", "4",
            "-o", x_npz)
    refused(1, "--d-model, --score: not an option", "compute", *run_args, "--d-model", "32",
            "--score", "rbf", "-o", x_npz)
    refused(1, "--dk: not an option of a --model run", "compute", *run_args, "--dk", "8",
            "-o", x_npz)
    refused(1, "--model: the folder name is empty", "compute", "--model", "", "--text", "x",
            "-o", x_npz)
    # Text past the model's 16 positions is refused (tokenized no further than 17 tokens).
    refused(1, "more than 16 tokens", "compute", "--model", model, "--text", "the cat sat " * 5000,
            "-o", x_npz)
    # --head and --layer past the model's 2 heads and 2 layers, in every view.
    for view in ["heads", "model", "playground", "lines", "tokens", "neuron", "census", "rollout",
                 "qk", "lens:scaling"]:
        for option in ("--head", "--layer"):
            refused(1, f"{option}: 2 is out of range", "render", *run_args, "--view", view,
                    option, "2", "--size", "320x240", "-o", x_png)
    refused(2, "config.json", "compute", "--model", os.path.join(tmp, "nowhere"), "--text", "x",
            "-o", x_npz)
    refused(1, "--layers: 2 is out of range (the model has 2 layers", "compute", *run_args,
            "--layers", "2", "-o", x_npz)
    refused(1, "--layers: '1,x' is not a list", "compute", *run_args, "--layers", "1,x",
            "-o", x_npz)
    refused(1, "--model", "compute", "--text", "the cat", "--layers", "1", "-o", x_npz)
finish()
PY
