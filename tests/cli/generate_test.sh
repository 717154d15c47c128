#!/usr/bin/env bash
# AttnScope — `attnscope generate` on a tiny random GPT-2 folder against numpy's greedy chain of
# full recomputes (tests/core/generate_reference.py): token_ids, generated, logprobs (NaN at 0,
# 1e-4) and the final sequence's weights (numpy's GPT-2, 1e-5); a seed repeats and another one
# differs; --stop ends at its id; --ablate changes the weights of the ablated run; bad options,
# a missing model and an unsafe -o are refused with their exit codes.
#   generate_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python_checks <<'PY'
import os, subprocess, tempfile
import numpy as np
from cli_checks import BIN, check, finish
from gpt2_tiny import reference, tiny_folder
from generate_reference import greedy

def generate(*args):
    return subprocess.run([BIN, "generate", *args], capture_output=True, text=True)

with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "tiny-gpt2")
    w = tiny_folder(model, 11, 3)
    prompt = [ord("t"), 256, 32, ord("c"), ord("a"), ord("t")]  # "the cat"
    out = os.path.join(tmp, "out.npz")
    r = generate("--model", model, "--text", "the cat", "--tokens", "5", "--greedy", "-o", out)
    check(r.returncode == 0, f"greedy exits 0 ({r.stderr.strip()})")
    ids, lp = greedy(lambda w_, i: reference(w_, i), w, prompt, 5, 16)
    z = np.load(out)
    check(z["token_ids"].dtype == np.int32 and list(z["token_ids"]) == ids,
          f"token_ids {list(z['token_ids'])} == numpy's {ids}")
    check(list(z["generated"]) == [5], f"generated {list(z['generated'])} == [5]")
    check(np.isnan(z["logprobs"][0]), "logprobs[0] is NaN")
    err = np.abs(z["logprobs"][1:] - np.array(lp[1:])).max()
    check(err <= 1e-4, f"logprobs within 1e-4 of numpy's ({err:.1e})")
    ref_w, _ = reference(w, ids)
    check(z["weights"].shape == (3, 2, 11, 11), f"weights shape {z['weights'].shape}")
    err = np.abs(z["weights"] - ref_w).max()
    check(err <= 1e-5, f"final weights within 1e-5 of numpy's ({err:.1e})")

    def sampled(seed, *extra):
        r = generate("--model", model, "--text", "the cat", "--tokens", "10", "--temperature",
                     "3", "--seed", str(seed), *extra, "-o", out, "--force")
        check(r.returncode == 0, f"seed {seed} exits 0 ({r.stderr.strip()})")
        return list(np.load(out)["token_ids"])
    a, b, c = sampled(7), sampled(7), sampled(8)
    check(a == b, "the same seed gives the same ids")
    check(a != c, "another seed gives other ids")
    check(sampled(7, "--top-k", "1") == greedy(lambda w_, i: reference(w_, i), w, prompt, 10, 16)[0],
          "top-k 1 is greedy")

    r = generate("--model", model, "--text", "the cat", "--tokens", "5", "--greedy",
                 "--stop", str(ids[7]), "-o", out, "--force")
    z = np.load(out)
    first = next(i for i in range(6, len(ids)) if ids[i] == ids[7])
    check(list(z["token_ids"]) == ids[:first + 1], f"--stop {ids[7]} ends there")

    r = generate("--model", model, "--text", "the cat", "--tokens", "2", "--greedy",
                 "--ablate", "0.0,0.1,1.0,1.1", "-o", out, "--force")
    z = np.load(out)
    check(r.returncode == 0 and z["weights"].shape[0] == 3, "--ablate runs")
    check(np.abs(z["weights"][2] - reference(w, list(z["token_ids"]))[0][2]).max() > 1e-4,
          "--ablate of layers 0 and 1 changes layer 2's weights")

    for args, code, what in [
            (["--text", "x", "-o", out], 1, "--model missing"),
            (["--model", model, "--text", "x", "--greedy", "--seed", "3", "-o", out], 1,
             "--greedy with --seed"),
            (["--model", model, "--text", "x", "--top-p", "0", "-o", out], 1, "--top-p 0"),
            (["--model", model, "--text", "x", "--tokens", "2.5", "-o", out], 1, "--tokens 2.5"),
            (["--model", model, "--text", "x", "--ablate", "0", "-o", out], 1, "--ablate 0"),
            (["--model", model, "--text", "x", "--ablate", "9.9", "-o", out, "--force"], 1,
             "--ablate 9.9 (no such head)"),
            (["--model", model, "--text", "x", "-o", os.path.join(tmp, "out.png")], 1, "-o .png"),
            (["--model", os.path.join(tmp, "none"), "--text", "x", "-o", out, "--force"], 2,
             "a missing folder"),
            (["--model", model, "--text", "x", "-o", os.path.join(model, "x", "o.npz")], 3,
             "-o in a missing folder"),
            (["--model", model, "--text", "x", "-o", os.path.join(model, "config.json")], 1,
             "-o config.json (not .npz)")]:
        r = generate(*args)
        check(r.returncode == code and r.stderr.startswith("attnscope: ") and
              "Traceback" not in r.stderr and "std::" not in r.stderr,
              f"{what}: exit {r.returncode} == {code} ({r.stderr.strip().splitlines()[0] if r.stderr else ''})")
    os.symlink(out, os.path.join(tmp, "link.npz"))
    r = generate("--model", model, "--text", "x", "-o", os.path.join(tmp, "link.npz"))
    check(r.returncode == 3, f"-o a symbolic link refused: {r.returncode} ({r.stderr.strip()})")
    r = subprocess.run([BIN, "--help"], capture_output=True, text=True)
    check("attnscope generate" in r.stdout and "--top-p" in r.stdout, "--help lists generate")

finish()
PY
