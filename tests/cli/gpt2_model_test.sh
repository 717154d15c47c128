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
from gpt2_tiny import reference, weights, write_model

BIN = sys.argv[1]
failures = []

def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)

# GPT-2's bytes_to_unicode, written out here: printable Latin-1 bytes stand for themselves.
printable = set(range(33, 127)) | set(range(161, 173)) | set(range(174, 256))
sym, extra = {}, 0
for b in range(256):
    if b in printable:
        sym[b] = chr(b)
    else:
        sym[b] = chr(256 + extra)
        extra += 1
vocab = {sym[b]: b for b in range(256)} | {"he": 256, sym[32] + "t": 257}
with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "tiny-gpt2")
    w = weights(np.random.default_rng(11), vocab=len(vocab))
    write_model(model, w, vocab_size=len(vocab))
    json.dump(vocab, open(os.path.join(model, "vocab.json"), "w"))
    open(os.path.join(model, "merges.txt"), "w").write(f"#version: 0.2\nh e\n{sym[32]} t\n")
    # "the cat": "the" → t + he (merge 1); " cat" → Ġ c a t (no merge applies).
    ids = [ord("t"), 256, 32, ord("c"), ord("a"), ord("t")]
    for name, args, ref in [("GPT-2's settings", [], {}),
                            ("--no-scale --temperature 3 inside the run",
                             ["--no-scale", "--temperature", "3"],
                             dict(scale=False, temperature=3.0))]:
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
        ref_w, ref_logits = reference(w, ids, **ref)
        err_w = np.abs(z["weights"] - ref_w).max()
        err_l = np.abs(z["logits"] - ref_logits).max() / np.abs(ref_logits).max()
        check(z["weights"].shape == ref_w.shape and err_w <= 1e-5,
              f"{name}: weights {z['weights'].shape} within {err_w:.1e} of numpy")
        check(err_l <= 1e-4, f"{name}: logits within {err_l:.1e} (relative) of numpy")
        check({"raw", "scaled", "masked", "weights"} <= set(z.files), f"{name}: stages {sorted(z.files)}")
    r = subprocess.run([BIN, "compute", "--model", os.path.join(tmp, "nowhere"), "--text", "x",
                        "-o", os.path.join(tmp, "x.npz")], capture_output=True, text=True)
    check(r.returncode == 2 and "config.json" in r.stderr,
          f"a missing folder is an input error naming config.json ({r.returncode}: {r.stderr.strip()})")
sys.exit(1 if failures else 0)
PY
