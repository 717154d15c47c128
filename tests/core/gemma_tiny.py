# AttnScope — tiny random Gemma 2 and Gemma 3 text models in the Hugging Face layout, and their
# forward pass in numpy: the independent reference of gemma_reference_test.py.
# GPL-3.0-or-later.
# The numpy side follows transformers' modeling_gemma2 / modeling_gemma3 formulas directly:
# embeddings × √d, GemmaRMSNorm (x / rms · (1 + w)), sandwich norms around attention and the
# MLP, scores · query_pre_attn_scalar^−½, tanh soft-capping before the mask, sliding windows on
# the layers layer_types (or the pattern) names, Gemma 3's q/k norms and local rotary base,
# GeGLU (gelu_pytorch_tanh), the tied head and final_logit_softcapping.
#   gemma_tiny.py DIR [SEED] [gemma2|gemma3_text] [--layers L] [--dtype BF16]: a whole folder.
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llama_tiny import tokenizer_json, write_model  # noqa: E402


def config(model_type="gemma2", layers=3, hidden=32, heads=4, kv_heads=2, head_dim=12,
           inter=48, vocab=48, **extra):
    c = {"model_type": model_type, "num_hidden_layers": layers, "hidden_size": hidden,
         "num_attention_heads": heads, "num_key_value_heads": kv_heads, "head_dim": head_dim,
         "intermediate_size": inter, "vocab_size": vocab, "max_position_embeddings": 64,
         "rms_norm_eps": 1e-6, "hidden_activation": "gelu_pytorch_tanh",
         "query_pre_attn_scalar": 16, "sliding_window": 4, "tie_word_embeddings": True}
    if model_type == "gemma2":
        c |= {"rope_theta": 10000.0, "attn_logit_softcapping": 2.0,
              "final_logit_softcapping": 3.0}
    else:
        c |= {"rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
              "sliding_window_pattern": 2, "attn_logit_softcapping": None,
              "final_logit_softcapping": None}
    return c | extra


def window_layers(c):
    """Per layer: True for a sliding-window layer (transformers' layer_types)."""
    if c.get("layer_types"):
        return [t == "sliding_attention" for t in c["layer_types"]]
    pattern = 2 if c["model_type"] == "gemma2" else c.get("sliding_window_pattern", 6)
    return [bool((i + 1) % pattern) for i in range(c["num_hidden_layers"])]


def weights(rng, c):
    d, hd, ff, v = c["hidden_size"], c["head_dim"], c["intermediate_size"], c["vocab_size"]
    qd, kvd = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd
    # Gemma's norms hold w of (1 + w): around 0.
    w = {"model.embed_tokens.weight": rng.normal(0, 0.3, (v, d)),
         "model.norm.weight": rng.normal(0, 0.1, d)}
    if not c.get("tie_word_embeddings", True):
        w["lm_head.weight"] = rng.normal(0, 0.4, (v, d))
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        for norm in ("input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                     "post_feedforward_layernorm"):
            w[p + norm + ".weight"] = rng.normal(0, 0.1, d)
        for name, rows, cols in (("self_attn.q_proj", qd, d), ("self_attn.k_proj", kvd, d),
                                 ("self_attn.v_proj", kvd, d), ("self_attn.o_proj", d, qd),
                                 ("mlp.gate_proj", ff, d), ("mlp.up_proj", ff, d),
                                 ("mlp.down_proj", d, ff)):
            # Large enough that the soft-cap of 2 bends the scores.
            w[p + name + ".weight"] = rng.normal(0, 1.6 / math.sqrt(cols), (rows, cols))
        if c["model_type"] != "gemma2":
            w[p + "self_attn.q_norm.weight"] = rng.normal(0, 0.1, hd)
            w[p + "self_attn.k_norm.weight"] = rng.normal(0, 0.1, hd)
    return {k: x.astype(np.float32) for k, x in w.items()}


def inv_freq(theta, hd, scaling=None):
    f = 1.0 / theta ** (np.arange(0, hd, 2) / hd)
    if scaling and scaling.get("rope_type", scaling.get("type")) == "linear":
        f = f / scaling["factor"]
    return f


def rms(x, w, eps):
    """GemmaRMSNorm: x / √(mean(x²) + ε) · (1 + w)."""
    return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps) * (1.0 + w)


def rope(x, f):
    n, half = x.shape[1], x.shape[2] // 2
    ang = np.arange(n)[:, None] * f[None, :]
    cos, sin = np.cos(np.concatenate([ang, ang], -1)), np.sin(np.concatenate([ang, ang], -1))
    return x * cos + np.concatenate([-x[..., half:], x[..., :half]], -1) * sin


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def reference(w, c, ids, scale=True, temperature=1.0, rotary=True, softcap=True, layers=None,
              stages=False):
    """The forward in float64, the controls inside LAYERS (all when None): attention weights
    [L, H, n, n] and the last position's logits (with STAGES, also the soft-capped scores)."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    eps, hd, d = c["rms_norm_eps"], c["head_dim"], c["hidden_size"]
    H, KV, n = c["num_attention_heads"], c["num_key_value_heads"], len(ids)
    g2 = c["model_type"] == "gemma2"
    f_global = inv_freq(c["rope_theta"], hd, c.get("rope_scaling"))
    f_local = f_global if g2 else inv_freq(c.get("rope_local_base_freq", 10000.0), hd)
    cap = c.get("attn_logit_softcapping")
    kinds = window_layers(c)
    x = w["model.embed_tokens.weight"][ids] * np.float32(math.sqrt(d))
    out, capped = [], []
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        inside = layers is None or l in layers
        h = rms(x, w[p + "input_layernorm.weight"], eps)
        q = (h @ w[p + "self_attn.q_proj.weight"].T).reshape(n, H, hd).transpose(1, 0, 2)
        k = (h @ w[p + "self_attn.k_proj.weight"].T).reshape(n, KV, hd).transpose(1, 0, 2)
        v = (h @ w[p + "self_attn.v_proj.weight"].T).reshape(n, KV, hd).transpose(1, 0, 2)
        if not g2:
            q = rms(q, w[p + "self_attn.q_norm.weight"], eps)
            k = rms(k, w[p + "self_attn.k_norm.weight"], eps)
        f = f_local if kinds[l] else f_global
        if rotary or not inside:
            q, k = rope(q, f), rope(k, f)
        k, v = np.repeat(k, H // KV, axis=0), np.repeat(v, H // KV, axis=0)
        s = q @ k.transpose(0, 2, 1)
        if scale or not inside:
            s = s * c["query_pre_attn_scalar"] ** -0.5
        if cap and (softcap or not inside):
            s = np.tanh(s / cap) * cap
        capped.append(s)
        if inside:
            s = s / temperature
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        allowed = j <= i
        if kinds[l]:
            allowed &= j > i - c["sliding_window"]
        s = np.where(allowed, s, -np.inf)
        e = np.exp(s - s.max(-1, keepdims=True))
        att = e / e.sum(-1, keepdims=True)
        out.append(att)
        z = (att @ v).transpose(1, 0, 2).reshape(n, H * hd)
        a = z @ w[p + "self_attn.o_proj.weight"].T
        x = x + rms(a, w[p + "post_attention_layernorm.weight"], eps)
        h2 = rms(x, w[p + "pre_feedforward_layernorm.weight"], eps)
        m = (gelu_tanh(h2 @ w[p + "mlp.gate_proj.weight"].T) * (h2 @ w[p + "mlp.up_proj.weight"].T))
        x = x + rms(m @ w[p + "mlp.down_proj.weight"].T, w[p + "post_feedforward_layernorm.weight"],
                    eps)
    last = rms(x[-1], w["model.norm.weight"], eps)
    head = (w["model.embed_tokens.weight"] if c.get("tie_word_embeddings", True)
            else w["lm_head.weight"])
    logits = head @ last
    if c.get("final_logit_softcapping"):
        fc = c["final_logit_softcapping"]
        logits = np.tanh(logits / fc) * fc
    if stages:
        return np.array(out), logits, np.array(capped)
    return np.array(out), logits


def tiny_folder(folder, seed, c, dtype="F32"):
    """A whole tiny folder of config C; returns the float32 values its files hold."""
    used = write_model(folder, weights(np.random.default_rng(seed), c), c, dtype)
    json.dump(tokenizer_json(c["vocab_size"]), open(os.path.join(folder, "tokenizer.json"), "w"))
    return used


if __name__ == "__main__":
    args = sys.argv[1:]
    opt = lambda name, default: args[args.index(name) + 1] if name in args else default  # noqa
    plain = [a for i, a in enumerate(args) if not a.startswith("--")
             and (i == 0 or not args[i - 1].startswith("--"))]
    kind = plain[2] if len(plain) > 2 else "gemma2"
    tiny_folder(plain[0], int(plain[1]) if len(plain) > 1 else 11,
                config(kind, layers=int(opt("--layers", 3))), opt("--dtype", "F32"))
