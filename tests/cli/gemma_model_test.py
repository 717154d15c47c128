# AttnScope — `attnscope compute --model DIR --text T -o OUT.npz` on tiny random Gemma 2 and
# Gemma 3 text folders (tests/core/gemma_tiny.py, a tokenizer.json of whole words) against its
# numpy forward: token_ids, weights [L,H,n,n] to 3e-5, logits [vocab] to 1e-4 relative, the
# softcapped stage [L,H,n,n] of a soft-capping model (and none for one that does not), and
# --no-softcap inside the run (refused by name for a model without soft-capping).
# GPL-3.0-or-later.
# Usage: gemma_model_test.py ATTNSCOPE WORKDIR
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "core"))
import gemma_tiny  # noqa: E402
import llama_tiny  # noqa: E402

WORDS = llama_tiny.WORDS
failures = 0


def run(exe, folder, text, out, *extra):
    r = subprocess.run([exe, "compute", "--model", folder, "--text", text, "-o", out, *extra],
                       capture_output=True, text=True)
    return r.returncode, r.stderr


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += 0 if ok else 1


def main(exe, work):
    text = "the cat sat on the mat and then a dog ran far"
    ids = [WORDS.index(t) for t in text.split()]
    n = len(ids)
    for kind, dtype in (("gemma2", "BF16"), ("gemma3_text", "F32")):
        c = gemma_tiny.config(kind)
        folder = os.path.join(work, kind)
        w = gemma_tiny.tiny_folder(folder, 5, c, dtype)
        caps = bool(c.get("attn_logit_softcapping"))
        runs = [("plain", [], {})]
        if caps:
            runs.append(("soft-capping off in layer 1", ["--no-softcap", "--layers", "1"],
                         {"softcap": False, "layers": [1]}))
        for name, opts, ref in runs:
            out = os.path.join(work, f"{kind}.npz")
            code, err = run(exe, folder, text, out, *opts)
            check(code == 0, f"{kind} {name}: exit 0 ({err.strip()})")
            if code != 0:
                continue
            z = np.load(out)
            check(list(z["token_ids"]) == ids, f"{kind} {name}: token ids {list(z['token_ids'])}")
            weights, logits, capped = gemma_tiny.reference(w, c, ids, stages=True, **ref)
            dw = float(np.abs(z["weights"] - weights).max())
            dl = float(np.abs(z["logits"] - logits).max() / np.abs(logits).max())
            check(z["weights"].shape == weights.shape and dw < 3e-5,
                  f"{kind} {name}: weights {z['weights'].shape} within {dw:.2e} of numpy")
            check(dl < 1e-4, f"{kind} {name}: logits within {dl:.2e} (relative) of numpy")
            if caps:
                # Compared where the causal mask lets a key through (the rest is not a score).
                seen = np.tril(np.ones((n, n), bool))
                got = z["softcapped"] if "softcapped" in z.files else np.zeros(0)
                ok = got.shape == capped.shape
                dc = float(np.abs(got - capped)[..., seen].max()) if ok else np.inf
                check(ok and dc < 1e-4, f"{kind} {name}: softcapped {got.shape} within {dc:.2e}")
                on = [l for l in range(c["num_hidden_layers"]) if ref.get("layers") != [l]]
                check(ok and float(np.abs(got[on]).max()) <= c["attn_logit_softcapping"] + 1e-6,
                      f"{kind} {name}: soft-capped scores within ±cap where the cap is on")
            else:
                check("softcapped" not in z.files, f"{kind}: no softcapped array without a cap")
    code, err = run(exe, os.path.join(work, "gemma3_text"), text, os.path.join(work, "x.npz"),
                    "--no-softcap")
    check(code == 1 and "--no-softcap" in err and "Gemma 3" in err,
          f"--no-softcap on a model without soft-capping is a usage error ({err.strip()})")
    return failures


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1], sys.argv[2]) else 0)
