# AttnScope — `attnscope compute --model DIR` on tiny random Llama-family folders (llama, qwen3,
# mistral), with a tokenizer.json of whole words, against the numpy forward of
# tests/core/llama_tiny.py: weights [L,H,n,n] and logits, with --no-rotary, --layers,
# --no-scale and --temperature inside the run. GPL-3.0-or-later.
# Usage: llama_model_test.py ATTNSCOPE WORKDIR
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "core"))
import llama_tiny  # noqa: E402

WORDS = llama_tiny.WORDS
tokenizer_json = llama_tiny.tokenizer_json


def run(exe, folder, text, out, *extra):
    r = subprocess.run([exe, "compute", "--model", folder, "--text", text, "-o", out, *extra],
                       capture_output=True, text=True)
    return r.returncode, r.stderr


failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += 0 if ok else 1


def main(exe, work):
    rng = np.random.default_rng(7)
    text = "the cat sat on the mat and then a dog ran far"
    ids = [WORDS.index(t) for t in text.split()]
    cases = [("llama", {}), ("qwen3", {"head_dim": 12, "kv_heads": 2}),
             ("mistral", {"sliding_window": 4})]
    for kind, extra in cases:
        c = llama_tiny.config(kind, **extra)
        folder = os.path.join(work, kind)
        w = llama_tiny.write_model(folder, llama_tiny.weights(rng, c), c, "BF16")
        json.dump(tokenizer_json(c["vocab_size"]), open(os.path.join(folder, "tokenizer.json"), "w"))
        for name, opts, ref in [
                ("plain", [], {}),
                ("rotary off in layer 1", ["--no-rotary", "--layers", "1"],
                 {"rotary": False, "layers": [1]}),
                ("no scale, tau 2", ["--no-scale", "--temperature", "2"],
                 {"scale": False, "temperature": 2.0})]:
            out = os.path.join(work, f"{kind}.npz")
            code, err = run(exe, folder, text, out, *opts)
            check(code == 0, f"{kind} {name}: exit 0 ({err.strip()})")
            if code != 0:
                continue
            z = np.load(out)
            check(list(z["token_ids"]) == ids, f"{kind} {name}: token ids {list(z['token_ids'])}")
            weights, logits = llama_tiny.reference(w, c, ids, **ref)
            dw = float(np.abs(z["weights"] - weights).max())
            dl = float(np.abs(z["logits"] - logits).max() / np.abs(logits).max())
            check(dw < 1e-5, f"{kind} {name}: weights within {dw:.2e} of numpy")
            check(dl < 1e-4, f"{kind} {name}: logits within {dl:.2e} (relative) of numpy")
    # Rotary positions off on a family without them is refused by name.
    gpt2_like = os.path.join(work, "llama")
    code, err = run(exe, gpt2_like, text, os.path.join(work, "x.npz"), "--no-rotary", "--layers",
                    "7")
    check(code == 1 and "--layers" in err, f"a layer out of range is a usage error ({err.strip()})")
    return failures


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1], sys.argv[2]) else 0)
