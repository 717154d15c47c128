# AttnScope — tiny random GPT-NeoX (Pythia) models in the Hugging Face layout, and the family's
# forward pass in numpy: the independent reference of the gpt_neox tests. GPL-3.0-or-later.
# The numpy side follows transformers' modeling_gpt_neox formulas directly: the fused
# query_key_value laid out per head ([heads, 3, head_dim]), rotary over the first
# rotary_pct · head_dim dimensions (rotate_half within them), LayerNorm with bias, exact GELU,
# the parallel residual x + attn(ln1 x) + mlp(ln2 x) or the sequential one, an untied embed_out.
#   gpt_neox_tiny.py DIR [SEED] [--layers L] [--sequential] [--rotary-pct P] [--dtype BF16]
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llama_tiny import tokenizer_json, write_model  # noqa: E402


def config(layers=2, hidden=32, heads=4, inter=64, vocab=48, rotary_pct=0.25, parallel=True,
           **extra):
    c = {"model_type": "gpt_neox", "num_hidden_layers": layers, "hidden_size": hidden,
         "num_attention_heads": heads, "intermediate_size": inter, "vocab_size": vocab,
         "max_position_embeddings": 64, "layer_norm_eps": 1e-5, "rotary_pct": rotary_pct,
         "rotary_emb_base": 10000.0, "hidden_act": "gelu", "use_parallel_residual": parallel,
         "tie_word_embeddings": False}
    return c | extra


def weights(rng, c):
    d, ff, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    w = {"gpt_neox.embed_in.weight": rng.normal(0, 0.6, (v, d)),
         "gpt_neox.final_layer_norm.weight": 1 + rng.normal(0, 0.1, d),
         "gpt_neox.final_layer_norm.bias": rng.normal(0, 0.1, d),
         "embed_out.weight": rng.normal(0, 0.4, (v, d))}
    for l in range(c["num_hidden_layers"]):
        p = f"gpt_neox.layers.{l}."
        for norm in ("input_layernorm", "post_attention_layernorm"):
            w[p + norm + ".weight"] = 1 + rng.normal(0, 0.1, d)
            w[p + norm + ".bias"] = rng.normal(0, 0.1, d)
        for name, rows, cols in (("attention.query_key_value", 3 * d, d), ("attention.dense", d, d),
                                 ("mlp.dense_h_to_4h", ff, d), ("mlp.dense_4h_to_h", d, ff)):
            w[p + name + ".weight"] = rng.normal(0, 0.8 / math.sqrt(cols), (rows, cols))
            w[p + name + ".bias"] = rng.normal(0, 0.2, rows)
    return {k: x.astype(np.float32) for k, x in w.items()}


def layer_norm(x, g, b, eps):
    m = x.mean(-1, keepdims=True)
    var = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(var + eps) * g + b


def gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def partial_rope(x, rot, base):
    """x [heads, n, hd]: the first ROT dimensions rotated (rotate_half among them), the rest as
    they are."""
    n = x.shape[1]
    f = 1.0 / base ** (np.arange(0, rot, 2) / rot)
    ang = np.arange(n)[:, None] * f[None, :]
    cos, sin = np.cos(np.concatenate([ang, ang], -1)), np.sin(np.concatenate([ang, ang], -1))
    r, rest = x[..., :rot], x[..., rot:]
    half = rot // 2
    turned = np.concatenate([-r[..., half:], r[..., :half]], -1)
    return np.concatenate([r * cos + turned * sin, rest], -1)


def reference(w, c, ids, scale=True, temperature=1.0, rotary=True):
    """The forward pass in float64: attention weights [L, H, n, n] and the last position's
    logits; SCALE (÷ √head_dim), TEMPERATURE and ROTARY as the run's controls in every layer.
    A tied model (no embed_out in W) reads embed_in as its head."""
    w = {k: x.astype(np.float64) for k, x in w.items()}
    if "embed_out.weight" not in w:
        w["embed_out.weight"] = w["gpt_neox.embed_in.weight"]
    d, H, n, eps = c["hidden_size"], c["num_attention_heads"], len(ids), c["layer_norm_eps"]
    hd = d // H
    rot = int(hd * c["rotary_pct"])

    def lin(x, name):
        return x @ w[name + ".weight"].T + w[name + ".bias"]

    def ln(x, name):
        return layer_norm(x, w[name + ".weight"], w[name + ".bias"], eps)

    x = w["gpt_neox.embed_in.weight"][ids]
    out = []
    for l in range(c["num_hidden_layers"]):
        p = f"gpt_neox.layers.{l}."
        qkv = lin(ln(x, p + "input_layernorm"), p + "attention.query_key_value")
        qkv = qkv.reshape(n, H, 3 * hd).transpose(1, 0, 2)
        q, k, v = qkv[..., :hd], qkv[..., hd:2 * hd], qkv[..., 2 * hd:]
        if rotary:
            q = partial_rope(q, rot, c["rotary_emb_base"])
            k = partial_rope(k, rot, c["rotary_emb_base"])
        s = q @ k.transpose(0, 2, 1) / (math.sqrt(hd) if scale else 1.0) / temperature
        s = np.where(np.arange(n)[None, :] <= np.arange(n)[:, None], s, -np.inf)
        e = np.exp(s - s.max(-1, keepdims=True))
        att = e / e.sum(-1, keepdims=True)
        out.append(att)
        a = lin((att @ v).transpose(1, 0, 2).reshape(n, d), p + "attention.dense")

        def mlp(h):
            return lin(gelu(lin(h, p + "mlp.dense_h_to_4h")), p + "mlp.dense_4h_to_h")

        if c["use_parallel_residual"]:
            x = x + a + mlp(ln(x, p + "post_attention_layernorm"))
        else:
            x = x + a
            x = x + mlp(ln(x, p + "post_attention_layernorm"))
    last = ln(x[-1], "gpt_neox.final_layer_norm")
    return np.array(out), w["embed_out.weight"] @ last


def tiny_folder(folder, seed, c, dtype="F32"):
    """A whole tiny folder (weights, config, tokenizer.json); returns the float32 values its
    files hold."""
    used = write_model(folder, weights(np.random.default_rng(seed), c), c, dtype)
    json.dump(tokenizer_json(c["vocab_size"]), open(os.path.join(folder, "tokenizer.json"), "w"))
    return used


if __name__ == "__main__":
    args = sys.argv[1:]
    opt = lambda name, default: args[args.index(name) + 1] if name in args else default  # noqa
    plain = [a for i, a in enumerate(args) if not a.startswith("--")
             and (i == 0 or not args[i - 1].startswith("--"))]
    c = config(layers=int(opt("--layers", 2)), rotary_pct=float(opt("--rotary-pct", 0.25)),
               parallel="--sequential" not in args)
    tiny_folder(plain[0], int(plain[1]) if len(plain) > 1 else 11, c, opt("--dtype", "F32"))
