#!/usr/bin/env python3
# AttnScope — core's GPT-NeoX family (Pythia) against gpt_neox_tiny's independent numpy forward,
# on tiny random models written here in the Hugging Face layout: the parallel and the sequential
# residual, partial and full rotary, F32 / F16 / BF16, sharded, tied; attention weights to 3e-5,
# logits to 1e-4 relative, with the controls applied inside the run; what the family refuses,
# refused by name. GPL-3.0-or-later.
#   gpt_neox_reference_test.py RUN_TOOL
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_run import check, checked_run, finish, refused  # noqa: E402
from gpt_neox_tiny import config, reference, weights  # noqa: E402
from llama_tiny import tokenizer_json, write_model  # noqa: E402


def write_folder(folder, w, c, dtype="F32", shards=1):
    used = write_model(folder, w, c, dtype, shards)
    json.dump(tokenizer_json(c["vocab_size"]), open(os.path.join(folder, "tokenizer.json"), "w"))
    return used


def compare(name, folder, w, c, ids, args=(), **ref):
    return checked_run(name, folder, ids, args, lambda: reference(w, c, ids, **ref),
                       weights_tol=3e-5)


CASES = [
    # name, config, dtype, shards
    ("parallel residual, rotary_pct 0.25, F32", config(), "F32", 1),
    ("sequential residual, rotary_pct 0.5, BF16", config(parallel=False, rotary_pct=0.5), "BF16",
     1),
    ("parallel, full rotary, F16, 2 shards, 3 layers", config(layers=3, rotary_pct=1.0), "F16", 2),
    ("sequential, no rotary (rotary_pct 0), 2 heads", config(parallel=False, rotary_pct=0.0,
                                                             heads=2), "F32", 1),
]

with tempfile.TemporaryDirectory() as tmp:
    ids = [3, 17, 5, 39, 0, 12, 12, 8, 21, 30]
    folders = {}
    for i, (name, c, dtype, shards) in enumerate(CASES):
        folder = os.path.join(tmp, f"m{i}")
        used = write_folder(folder, weights(np.random.default_rng(200 + i), c), c, dtype, shards)
        folders[name] = (folder, used, c)
        got = compare(name, folder, used, c, ids)
        if got:
            info = got[1]
            check(info["family"] == "gpt_neox" and info["dtype"] == dtype,
                  f"{name}: info says {info['family']} {info['dtype']}")
            n_params = sum(v.size for v in used.values())
            check(info["parameters"] == n_params,
                  f"{name}: {info['parameters']} parameters, the files hold {n_params}")

    # Tied: no embed_out, the head is embed_in.
    c = config(tie_word_embeddings=True)
    w = weights(np.random.default_rng(9), c)
    del w["embed_out.weight"]
    f = os.path.join(tmp, "tied")
    compare("tie_word_embeddings true", f, write_folder(f, w, c), c, ids)

    # The controls inside the run, on the first model.
    folder, used, c = folders[CASES[0][0]]
    compare("scaling off", folder, used, c, ids, ["--no-scale"], scale=False)
    compare("temperature 2", folder, used, c, ids, ["--temperature", "2"], temperature=2.0)
    norot = compare("rotary off", folder, used, c, ids, ["--no-rotary"], rotary=False)
    if norot:
        check(np.abs(norot[0] - reference(used, c, ids)[0]).max() > 1e-3,
              "rotary off must change the weights")

    # Refusals, each naming the file and the field.
    c = config()
    w = weights(np.random.default_rng(1), c)

    def folder_with(name, cfg, wts=None):
        f = os.path.join(tmp, name)
        write_folder(f, w if wts is None else wts, cfg)
        return f

    refused("an odd rotary dimension", folder_with("odd", config(rotary_pct=0.125)), ids,
            "config.json", "rotary_pct", "odd")
    refused("hidden_act quick_gelu", folder_with("act", c | {"hidden_act": "quick_gelu"}), ids,
            "config.json", "\"quick_gelu\"")
    refused("rope_scaling dynamic",
            folder_with("dynamic", c | {"rope_scaling": {"type": "dynamic", "factor": 2.0}}), ids,
            "config.json", "\"dynamic\"")
    refused("untied without embed_out",
            folder_with("nohead", c, {k: v for k, v in w.items() if k != "embed_out.weight"}),
            ids, "embed_out.weight")
    bad = dict(w)
    bad["gpt_neox.layers.0.attention.query_key_value.weight"] = w[
        "gpt_neox.layers.0.attention.dense.weight"]
    refused("a query_key_value of the wrong shape", folder_with("shape", c, bad), ids,
            "query_key_value.weight", "[32, 32]", "expected [96, 32]")
    refused("heads not dividing hidden", folder_with("heads", c | {"num_attention_heads": 5}),
            ids, "num_attention_heads 5")

finish()
