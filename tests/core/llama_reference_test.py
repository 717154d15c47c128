#!/usr/bin/env python3
# AttnScope — core's Llama family (llama, mistral, qwen2, qwen3) against an independent numpy
# implementation, on tiny random models written here in the Hugging Face layout: every dtype,
# sharded and not, tied and not, every rope_scaling kind; attention weights to 1e-5, logits to
# 1e-4 relative, with the controls applied inside the run; and malformed folders refused with a
# message naming the file. GPL-3.0-or-later.
#   llama_reference_test.py RUN_TOOL
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_run import check, checked_run, finish, refused, run  # noqa: E402
from llama_tiny import (config, reference, safetensors_bytes, tokenizer_json, weights,  # noqa: E402
                        write_model)


def write_folder(folder, w, c, *args):
    """write_model's folder with a tokenizer.json of the model's vocab_size beside it: the run
    tool opens the folder through the family registry, which loads the tokenizer too."""
    used = write_model(folder, w, c, *args)
    json.dump(tokenizer_json(c["vocab_size"]), open(os.path.join(folder, "tokenizer.json"), "w"))
    return used


def compare(name, folder, w, c, ids, args=(), **ref):
    """checked_run against llama_tiny's numpy forward of config C with the controls REF."""
    return checked_run(name, folder, ids, args, lambda: reference(w, c, ids, **ref))


LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
          "original_max_position_embeddings": 64}
CASES = [
    # name, config, dtype, shards
    ("llama F32 tied, GQA 4/2", config("llama", tie_word_embeddings=True), "F32", 1),
    ("llama F16 untied, linear rope, attention and mlp biases, 3 shards",
     config("llama", attention_bias=True, mlp_bias=True,
            rope_scaling={"type": "linear", "factor": 2.0}), "F16", 3),
    ("llama BF16 llama3 rope, multi-query", config("llama", kv_heads=1, rope_scaling=LLAMA3),
     "BF16", 1),
    ("mistral F32, sliding window 4 < 10 tokens", config("mistral", sliding_window=4), "F32", 1),
    ("mistral BF16, sliding window null", config("mistral", sliding_window=None), "BF16", 2),
    ("qwen2 BF16 tied, q/k/v biases, 2 shards",
     config("qwen2", tie_word_embeddings=True, rope_theta=1e6), "BF16", 2),
    ("qwen3 F32, head_dim 12 ≠ 32/4, q_norm/k_norm", config("qwen3", head_dim=12), "F32", 1),
    # transformers' Qwen2Attention and LlamaAttention read head_dim when config.json has it.
    ("qwen2 F32, head_dim 12 ≠ 32/4", config("qwen2", head_dim=12), "F32", 1),
    ("llama F32, head_dim 4 ≠ 32/4, GQA 4/2", config("llama", head_dim=4), "F32", 1),
    ("qwen3 F16 tied, attention_bias, plain multi-head",
     config("qwen3", kv_heads=4, head_dim=6, attention_bias=True, tie_word_embeddings=True),
     "F16", 1),
]

with tempfile.TemporaryDirectory() as tmp:
    ids = [3, 17, 5, 39, 0, 12, 12, 8, 21, 30]
    folders = {}
    for i, (name, c, dtype, shards) in enumerate(CASES):
        folder = os.path.join(tmp, f"m{i}")
        used = write_folder(folder, weights(np.random.default_rng(100 + i), c), c, dtype, shards)
        folders[name] = (folder, used, c)
        got = compare(name, folder, used, c, ids)
        if got:
            info = got[1]
            check(info["family"] == c["model_type"] and info["dtype"] == dtype,
                  f"{name}: info says {info['family']} {info['dtype']}")
            n_params = sum(v.size for v in used.values())
            check(info["parameters"] == n_params,
                  f"{name}: {info['parameters']} parameters, the files hold {n_params}")

    # The controls inside the run, on the first model.
    folder, used, c = folders[CASES[0][0]]
    base = compare("scaling off", folder, used, c, ids, ["--no-scale"], scale=False)
    compare("temperature 2", folder, used, c, ids, ["--temperature", "2"], temperature=2.0)
    compare("mask none", folder, used, c, ids, ["--no-mask"], mask=False)
    one = compare("temperature 2 in layer 1 only", folder, used, c, ids,
                  ["--temperature", "2", "--layers", "1"], temperature=2.0, layers=[1])
    norot = compare("rotary off", folder, used, c, ids, ["--no-rotary"], rotary=False)
    compare("rotary off in layer 1", folder, used, c, ids, ["--no-rotary", "--layers", "1"],
            rotary=False, layers=[1])
    own = reference(used, c, ids)[0]
    if norot:
        check(np.abs(norot[0] - own).max() > 1e-3, "rotary off must change the weights")
    if one:
        check(np.abs(one[0][0] - own[0]).max() < 1e-6, "a layer-1 control must leave layer 0")
    # Mistral's window: query 9 sees only keys 6..9.
    mistral = run(folders[CASES[3][0]][0], ids)[1]
    if isinstance(mistral, dict):
        row = np.array(mistral["weights"][0][0]).reshape(10, 10)[9]
        check(np.all(row[:6] == 0) and np.all(row[6:] > 0), f"window row 9: {row}")

    # Malformed folders, each refused with a message naming the file and the problem.
    c = config("llama")
    w = weights(np.random.default_rng(1), c)

    def folder_with(name, **kw):
        f = os.path.join(tmp, name)
        write_folder(f, w, kw.pop("cfg", c), kw.pop("dtype", "F32"), kw.pop("shards", 1))
        return f

    f = folder_with("missing_in_shard", shards=2)
    index = json.load(open(os.path.join(f, "model.safetensors.index.json")))
    index["weight_map"]["model.extra.weight"] = "model-00001-of-00002.safetensors"
    json.dump(index, open(os.path.join(f, "model.safetensors.index.json"), "w"))
    refused("a tensor the index maps to a shard without it", f, ids, "model.extra.weight",
            "does not hold it")
    f = folder_with("traversal", shards=2)
    outside = os.path.join(tmp, "outside.safetensors")
    os.replace(os.path.join(f, "model-00002-of-00002.safetensors"), outside)
    index = json.load(open(os.path.join(f, "model.safetensors.index.json")))
    index["weight_map"] = {k: ("../outside.safetensors" if v.startswith("model-00002") else v)
                           for k, v in index["weight_map"].items()}
    json.dump(index, open(os.path.join(f, "model.safetensors.index.json"), "w"))
    refused("a shard named with ../", f, ids, "../outside.safetensors", "not a file name")
    f = folder_with("symlink", shards=2)
    os.remove(os.path.join(f, "model-00002-of-00002.safetensors"))
    os.symlink(outside, os.path.join(f, "model-00002-of-00002.safetensors"))
    refused("a shard linked outside the folder", f, ids, "leads outside the folder")
    f = folder_with("pickle")
    os.replace(os.path.join(f, "model.safetensors"), os.path.join(f, "pytorch_model.bin"))
    refused("pytorch_model.bin only", f, ids, "pytorch_model.bin", "safe_serialization=True")
    refused("rope_scaling yarn", folder_with("yarn", cfg=c | {"rope_scaling": {
        "rope_type": "yarn", "factor": 4.0}}), ids, "config.json", "\"yarn\"")
    f = folder_with("truncated")
    data = open(os.path.join(f, "model.safetensors"), "rb").read()
    open(os.path.join(f, "model.safetensors"), "wb").write(data[:-10])
    refused("a truncated file", f, ids, "model.safetensors", "truncated")
    f = folder_with("shape")
    bad = dict(w)
    bad["model.layers.1.self_attn.k_proj.weight"] = w["model.layers.1.self_attn.q_proj.weight"]
    write_model(f, bad, c)
    refused("a k_proj of the wrong shape", f, ids, "k_proj.weight", "[32, 32]", "expected [16, 32]")
    f = folder_with("nan", dtype="BF16")
    bad = dict(w)
    bad["model.layers.0.mlp.up_proj.weight"] = w["model.layers.0.mlp.up_proj.weight"].copy()
    bad["model.layers.0.mlp.up_proj.weight"][2, 3] = np.nan
    write_model(f, bad, c, "BF16")
    refused("a NaN in a BF16 weight", f, ids, "up_proj.weight", "non-finite")
    f = folder_with("overflow")
    bad = dict(w)
    bad["model.layers.1.input_layernorm.weight"] = np.full_like(
        w["model.layers.1.input_layernorm.weight"], 1e30)
    bad["model.layers.1.self_attn.q_proj.weight"] = w["model.layers.1.self_attn.q_proj.weight"] * 1e10
    write_model(f, bad, c)
    refused("finite weights whose product overflows", f, ids,
            f + ": layer 1 (tensors model.layers.1.*), head 0: Q contains a non-finite value",
            "check the weight files")
    f = folder_with("dtype")
    items = [(k, v.astype(np.float64).tobytes(), "F64", v.shape) for k, v in w.items()]
    open(os.path.join(f, "model.safetensors"), "wb").write(safetensors_bytes(items))
    refused("F64 weights", f, ids, "F64", "F32, F16 and BF16")
    f = folder_with("untied_no_head")
    write_model(f, {k: v for k, v in w.items() if k != "lm_head.weight"}, c)
    refused("untied without lm_head", f, ids, "lm_head.weight")
    f = folder_with("bad_gqa", cfg=c | {"num_key_value_heads": 3})
    refused("kv heads not dividing heads", f, ids, "num_key_value_heads 3")

finish()
