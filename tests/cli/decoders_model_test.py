# AttnScope — `attnscope compute --model DIR --text T -o OUT.npz` on tiny random Phi-3, OLMo-2
# and Mixtral folders (tests/core/decoder_tiny.py) against its numpy forward: token_ids, weights
# [L,H,n,n] to 3e-5, logits [vocab] to 1e-4 relative, with controls inside the run; for Mixtral
# router_experts [L,n,k] (equal) and router_weights [L,n,k] (to 3e-5), and no router arrays for
# a dense family. GPL-3.0-or-later.
# Usage: decoders_model_test.py FAMILY ATTNSCOPE WORKDIR
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "core"))
import decoder_tiny  # noqa: E402
from llama_tiny import WORDS  # noqa: E402

failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += 0 if ok else 1


def main(family, exe, work):
    text = "the cat sat on the mat and then a dog ran far"
    ids = [WORDS.index(t) for t in text.split()]
    c = decoder_tiny.config(family)
    if family == "phi3":
        c = decoder_tiny.phi3_longrope(c)  # 12 tokens > the original context 8: long factors
    folder = os.path.join(work, family)
    w = decoder_tiny.tiny_folder(folder, 5, c, "BF16")
    for name, opts, ref in [("plain", [], {}),
                            ("rotary off in layer 1", ["--no-rotary", "--layers", "1"],
                             {"rotary": False, "layers": [1]}),
                            ("no scale, tau 2", ["--no-scale", "--temperature", "2"],
                             {"scale": False, "temperature": 2.0})]:
        out = os.path.join(work, f"{family}.npz")
        r = subprocess.run([exe, "compute", "--model", folder, "--text", text, "-o", out, *opts],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"{family} {name}: exit 0 ({r.stderr.strip()})")
        if r.returncode != 0:
            continue
        z = np.load(out)
        check(list(z["token_ids"]) == ids, f"{family} {name}: token ids {list(z['token_ids'])}")
        weights, logits, routers = decoder_tiny.reference(w, c, ids, **ref)
        dw = float(np.abs(z["weights"] - weights).max())
        dl = float(np.abs(z["logits"] - logits).max() / np.abs(logits).max())
        check(dw < 3e-5, f"{family} {name}: weights within {dw:.2e} of numpy")
        check(dl < 1e-4, f"{family} {name}: logits within {dl:.2e} (relative) of numpy")
        if routers is None:
            check("router_experts" not in z.files and "router_weights" not in z.files,
                  f"{family} {name}: a dense model writes no router arrays")
            continue
        experts, routing = routers
        got_e, got_w = z["router_experts"], z["router_weights"]
        check(got_e.dtype == np.int32 and got_e.shape == experts.shape == (2, len(ids), 2),
              f"{family} {name}: router_experts int32 {got_e.shape}")
        check(got_e.shape == experts.shape and (got_e == experts).all(),
              f"{family} {name}: router_experts equal numpy's")
        dr = float(np.abs(got_w - routing).max()) if got_w.shape == routing.shape else 1.0
        check(got_w.shape == routing.shape and dr < 3e-5,
              f"{family} {name}: router_weights {got_w.shape} within {dr:.2e} of numpy")
    # The family's layer description: the gradient methods run (their numbers against autograd:
    # attribute_families_test.sh).
    out = os.path.join(work, f"{family}_saliency.npz")
    r = subprocess.run([exe, "attribute", "--model", folder, "--text", text, "--methods",
                        "saliency", "-o", out], capture_output=True, text=True)
    check(r.returncode == 0 and os.path.exists(out)
          and np.load(out)["saliency"].shape == (len(ids),),
          f"{family}: saliency computed ({r.stderr.strip()})")
    return failures


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1], sys.argv[2], sys.argv[3]) else 0)
