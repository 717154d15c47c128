#!/usr/bin/env python3
# AttnScope — core's Gemma family (gemma2, gemma3_text, a gemma3 folder's text_config) against an
# independent numpy implementation (gemma_tiny.py), on tiny random models written here in the
# Hugging Face layout: attention weights to 3e-5, logits to 1e-4 relative, with the controls
# (soft-capping off among them) inside the run; malformed configs refused by name.
# GPL-3.0-or-later.
#   gemma_reference_test.py RUN_TOOL
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_run import check, checked_run, finish, refused, run  # noqa: E402
from gemma_tiny import config, reference, tiny_folder, weights, window_layers  # noqa: E402
from llama_tiny import tokenizer_json, write_model  # noqa: E402

TOL = 3e-5


def compare(name, folder, w, c, ids, args=(), **ref):
    return checked_run(name, folder, ids, args, lambda: reference(w, c, ids, **ref), TOL)


CASES = [
    # name, config, dtype
    ("gemma2 F32, window 4 on even layers, soft-caps 2 and 3", config("gemma2"), "F32"),
    ("gemma2 BF16, untied, layer_types, multi-query",
     config("gemma2", kv_heads=1, tie_word_embeddings=False,
            layer_types=["full_attention", "sliding_attention", "full_attention"]), "BF16"),
    ("gemma2 F16, no soft-capping (null), head_dim 16 ≠ 32/4, scalar 20",
     config("gemma2", head_dim=16, query_pre_attn_scalar=20, attn_logit_softcapping=None,
            final_logit_softcapping=None), "F16"),
    ("gemma3_text F32, pattern 2, linear rope_scaling on global layers",
     config("gemma3_text", layers=4, rope_scaling={"rope_type": "linear", "factor": 4.0}), "F32"),
    ("gemma3_text BF16, layer_types, soft-capped 2",
     config("gemma3_text", attn_logit_softcapping=2.0,
            layer_types=["sliding_attention", "sliding_attention", "full_attention"]), "BF16"),
]

with tempfile.TemporaryDirectory() as tmp:
    ids = [3, 17, 5, 39, 0, 12, 12, 8, 21, 30]
    folders = {}
    for i, (name, c, dtype) in enumerate(CASES):
        folder = os.path.join(tmp, f"m{i}")
        used = tiny_folder(folder, 200 + i, c, dtype)
        folders[name] = (folder, used, c)
        got = compare(name, folder, used, c, ids)
        if got:
            info = got[1]
            check(info["family"] == c["model_type"] and info["dtype"] == dtype,
                  f"{name}: info says {info['family']} {info['dtype']}")
            check(info["softcap"] == bool(c.get("attn_logit_softcapping")),
                  f"{name}: info.softcap is {info['softcap']}")
            n_params = sum(v.size for v in used.values())
            check(info["parameters"] == n_params,
                  f"{name}: {info['parameters']} parameters, the files hold {n_params}")
            # A window layer's last query sees only keys 6..9; a global one every key.
            for l, windowed in enumerate(window_layers(c)):
                row = np.array(got[0][l][0][9])
                check(bool(np.all(row[:6] == 0)) == windowed and np.all(row[6:] > 0),
                      f"{name}: layer {l} row 9 {row} (window {windowed})")

    # The controls inside the run, on Gemma 2.
    folder, used, c = folders[CASES[0][0]]
    own = reference(used, c, ids)
    off = compare("soft-capping off", folder, used, c, ids, ["--no-softcap"], softcap=False)
    one = compare("soft-capping off in layer 1", folder, used, c, ids,
                  ["--no-softcap", "--layers", "1"], softcap=False, layers=[1])
    if off:
        check(np.abs(off[0] - own[0]).max() > 1e-3, "soft-capping off must change the weights")
    if one:
        check(np.abs(one[0][0] - own[0][0]).max() < 1e-6, "a layer-1 control must leave layer 0")
    compare("scaling off", folder, used, c, ids, ["--no-scale"], scale=False)
    compare("temperature 0.5 after the soft-cap", folder, used, c, ids, ["--temperature", "0.5"],
            temperature=0.5)
    compare("rotary off in layer 2", folder, used, c, ids, ["--no-rotary", "--layers", "2"],
            rotary=False, layers=[2])

    # A Gemma 3 folder (Gemma3ForConditionalGeneration): the text model under text_config,
    # its weights under language_model.model., a vision tower not run.
    c3 = config("gemma3_text")
    w3 = weights(np.random.default_rng(300), c3)
    folder = os.path.join(tmp, "gemma3")
    outer = {"model_type": "gemma3", "text_config": c3, "vision_config": {"hidden_size": 8}}
    renamed = {"language_model." + k: v for k, v in w3.items()}
    renamed["vision_tower.patch.weight"] = np.ones((2, 2), np.float32)
    used = write_model(folder, renamed, outer)
    json.dump(tokenizer_json(c3["vocab_size"]), open(os.path.join(folder, "tokenizer.json"), "w"))
    used3 = {k[len("language_model."):]: v for k, v in used.items() if k.startswith("language")}
    got = checked_run("gemma3 folder with text_config", folder, ids, [],
                      lambda: reference(used3, c3, ids), TOL)
    if got:
        check(got[1]["family"] == "gemma3_text", f"gemma3: family {got[1]['family']}")

    # Refusals, each naming the file and the field.
    c = config("gemma2")
    w = weights(np.random.default_rng(1), c)

    def folder_with(name, cfg, weights_=None):
        f = os.path.join(tmp, name)
        write_model(f, weights_ or w, cfg)
        json.dump(tokenizer_json(cfg.get("vocab_size", 48)),
                  open(os.path.join(f, "tokenizer.json"), "w"))
        return f

    refused("an unknown activation", folder_with("act", c | {"hidden_activation": "quick_gelu"}),
            ids, "config.json", "quick_gelu")
    refused("an unknown layer type",
            folder_with("types", c | {"layer_types": ["full_attention", "chunked_attention",
                                                      "full_attention"]}),
            ids, "config.json", "layer_types[1]", "chunked_attention")
    refused("layer_types of the wrong length",
            folder_with("types2", c | {"layer_types": ["full_attention"]}), ids, "layer_types")
    refused("rope_scaling yarn", folder_with("yarn", c | {"rope_scaling": {
        "rope_type": "yarn", "factor": 4.0}}), ids, "config.json", "\"yarn\"")
    refused("a gemma3 folder without text_config",
            folder_with("notext", {"model_type": "gemma3"}), ids, "config.json", "text_config")
    refused("a missing post-feed-forward norm",
            folder_with("nonorm", c, {k: v for k, v in w.items()
                                      if "layers.1.post_feedforward_layernorm" not in k}),
            ids, "model.layers.1.post_feedforward_layernorm.weight")

finish()
