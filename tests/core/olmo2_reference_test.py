#!/usr/bin/env python3
# AttnScope — core's OLMo-2 (norms after the attention and the MLP inside the residual, no
# pre-norm; q_norm / k_norm over the whole projections before the heads split) against
# decoder_tiny's numpy forward on tiny random folders: attention weights to 3e-5, logits to 1e-4
# relative, the controls inside the run; a folder missing a norm refused by name.
# GPL-3.0-or-later.
#   olmo2_reference_test.py RUN_TOOL
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_run import check, checked_run, finish, refused  # noqa: E402
from decoder_tiny import config, reference, tiny_folder, weights  # noqa: E402
from llama_tiny import write_model  # noqa: E402

import numpy as np  # noqa: E402


def compare(name, folder, w, c, ids, args=(), **ref):
    return checked_run(name, folder, ids, args, lambda: reference(w, c, ids, **ref)[:2],
                       weights_tol=3e-5)


IDS = [3, 17, 5, 39, 0, 12, 12, 8, 21, 30]
CASES = [
    ("olmo2 F32, GQA 4/2", config("olmo2"), "F32"),
    ("olmo2 BF16, attention_bias, multi-head 4/4, rope_theta 5e5",
     config("olmo2", kv_heads=4, attention_bias=True, rope_theta=5e5), "BF16"),
    ("olmo2 F16 tied, linear rope", config("olmo2", tie_word_embeddings=True,
                                           rope_scaling={"type": "linear", "factor": 2.0}), "F16"),
]

with tempfile.TemporaryDirectory() as tmp:
    folders = []
    for i, (name, c, dtype) in enumerate(CASES):
        folder = os.path.join(tmp, f"m{i}")
        used = tiny_folder(folder, 300 + i, c, dtype)
        folders.append((folder, used, c))
        got = compare(name, folder, used, c, IDS)
        if got:
            info = got[1]
            check(info["family"] == "olmo2" and info["dtype"] == dtype,
                  f"{name}: info says {info['family']} {info['dtype']}")
            check(info["pre_norm"] is False, f"{name}: OLMo-2 normalises after each block")
            n_params = sum(v.size for v in used.values())
            check(info["parameters"] == n_params,
                  f"{name}: {info['parameters']} parameters, the files hold {n_params}")

    folder, used, c = folders[0]
    compare("scaling off", folder, used, c, IDS, ["--no-scale"], scale=False)
    compare("temperature 2 in layer 1", folder, used, c, IDS,
            ["--temperature", "2", "--layers", "1"], temperature=2.0, layers=[1])
    compare("rotary off", folder, used, c, IDS, ["--no-rotary"], rotary=False)

    c = config("olmo2")
    w = weights(np.random.default_rng(1), c)
    f = os.path.join(tmp, "no_ff_norm")
    write_model(f, {k: v for k, v in w.items() if "post_feedforward" not in k}, c)
    tiny_folder(os.path.join(tmp, "tok"), 1, c)
    os.replace(os.path.join(tmp, "tok", "tokenizer.json"), os.path.join(f, "tokenizer.json"))
    refused("no post_feedforward_layernorm", f, IDS, "post_feedforward_layernorm")
    f = os.path.join(tmp, "clip")
    tiny_folder(f, 1, c | {"clip_qkv": 8.0})
    refused("clip_qkv", f, IDS, "config.json", "clip_qkv")

finish()
