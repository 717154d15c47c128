# AttnScope — tiny random Phi-3, OLMo-2 and Mixtral models in the Hugging Face layout, and their
# forward pass in numpy: the independent reference of phi3_, olmo2_ and mixtral_reference_test.py
# and of the CLI's checks. GPL-3.0-or-later.
# The numpy side follows transformers' modeling_phi3 / _olmo2 / _mixtral and modeling_rope_utils
# (_compute_longrope_parameters) directly, not the C++ code's structure.
#   decoder_tiny.py DIR SEED MODEL_TYPE [POSITIONS]: writes a whole tiny folder into DIR.
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llama_tiny import rms, tokenizer_json, write_model  # noqa: E402


def config(model_type, layers=2, hidden=32, heads=4, kv_heads=2, inter=40, vocab=48, **extra):
    c = {"model_type": model_type, "num_hidden_layers": layers, "hidden_size": hidden,
         "num_attention_heads": heads, "num_key_value_heads": kv_heads,
         "intermediate_size": inter, "vocab_size": vocab, "max_position_embeddings": 64,
         "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "hidden_act": "silu",
         "tie_word_embeddings": False}
    if model_type == "mixtral":
        c |= {"num_local_experts": 4, "num_experts_per_tok": 2}
    return c | extra


def head_dim(c):
    return c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]


def weights(rng, c):
    t = c["model_type"]
    d, hd, ff, v = c["hidden_size"], head_dim(c), c["intermediate_size"], c["vocab_size"]
    qd, kvd = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd
    bias = t == "olmo2" and c.get("attention_bias", False)
    gain = lambda k: 1 + rng.normal(0, 0.1, k)  # noqa: E731
    mat = lambda r, k: rng.normal(0, 0.8 / math.sqrt(k), (r, k))  # noqa: E731
    w = {"model.embed_tokens.weight": rng.normal(0, 0.6, (v, d)), "model.norm.weight": gain(d)}
    if not c.get("tie_word_embeddings", False):
        w["lm_head.weight"] = rng.normal(0, 0.4, (v, d))
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        if t != "olmo2":
            w[p + "input_layernorm.weight"] = gain(d)
        w[p + "post_attention_layernorm.weight"] = gain(d)
        if t == "phi3":
            w[p + "self_attn.qkv_proj.weight"] = mat(qd + 2 * kvd, d)
            w[p + "mlp.gate_up_proj.weight"] = mat(2 * ff, d)
            w[p + "mlp.down_proj.weight"] = mat(d, ff)
        else:
            for name, rows in (("q_proj", qd), ("k_proj", kvd), ("v_proj", kvd)):
                w[p + "self_attn." + name + ".weight"] = mat(rows, d)
                if bias:
                    w[p + "self_attn." + name + ".bias"] = rng.normal(0, 0.2, rows)
        w[p + "self_attn.o_proj.weight"] = mat(d, qd)
        if bias:
            w[p + "self_attn.o_proj.bias"] = rng.normal(0, 0.2, d)
        if t == "olmo2":
            w[p + "post_feedforward_layernorm.weight"] = gain(d)
            w[p + "self_attn.q_norm.weight"] = gain(qd)
            w[p + "self_attn.k_norm.weight"] = gain(kvd)
            for name, rows, cols in (("gate_proj", ff, d), ("up_proj", ff, d), ("down_proj", d, ff)):
                w[p + "mlp." + name + ".weight"] = mat(rows, cols)
        if t == "mixtral":
            m = p + "block_sparse_moe."
            w[m + "gate.weight"] = rng.normal(0, 1.5, (c["num_local_experts"], d))
            for e in range(c["num_local_experts"]):
                w[m + f"experts.{e}.w1.weight"] = mat(ff, d)
                w[m + f"experts.{e}.w2.weight"] = mat(d, ff)
                w[m + f"experts.{e}.w3.weight"] = mat(ff, d)
    return {k: v.astype(np.float32) for k, v in w.items()}


def rope_parameters(c, n):
    """(inverse frequencies, attention factor) of a run of N positions: transformers'
    default rope, or _compute_longrope_parameters with Phi-3's short/long switch."""
    hd, base = head_dim(c), c.get("rope_theta", 10000.0)
    shape = np.arange(0, hd, 2) / hd
    r = c.get("rope_scaling") or {}
    kind = r.get("rope_type", r.get("type"))
    if kind == "linear":
        return 1.0 / base ** shape / r["factor"], 1.0
    if kind not in ("longrope", "su"):
        return 1.0 / base ** shape, 1.0
    original = c.get("original_max_position_embeddings", 4096)
    factor = c["max_position_embeddings"] / original
    attention = r.get("attention_factor")
    if attention is None:
        attention = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(original))
    ext = np.array(r["long_factor"] if n > original else r["short_factor"])
    return 1.0 / (ext * base ** shape), attention


def rope(x, f, scale):
    """x [heads, n, hd] at positions 0…n−1: (x·cos + rotate_half(x)·sin) with cos, sin × scale."""
    n, half = x.shape[1], x.shape[2] // 2
    ang = np.arange(n)[:, None] * f[None, :]
    emb = np.concatenate([ang, ang], -1)
    rot = np.concatenate([-x[..., half:], x[..., :half]], -1)
    return x * np.cos(emb) * scale + rot * np.sin(emb) * scale


def silu(g):
    return g / (1 + np.exp(-g))


def reference(w, c, ids, scale=True, temperature=1.0, mask=True, layers=None, rotary=True):
    """The forward pass in float64 with the controls inside LAYERS (all when None); returns
    attention weights [L, H, n, n], the last position's logits, and (Mixtral) the routing:
    experts [L, n, k] and weights [L, n, k]."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    t, eps, hd = c["model_type"], c["rms_norm_eps"], head_dim(c)
    H, KV, n = c["num_attention_heads"], c["num_key_value_heads"], len(ids)
    qd, kvd = H * hd, KV * hd
    f, factor = rope_parameters(c, n)
    window = c.get("sliding_window")

    def lin(x, name):
        return x @ w[name + ".weight"].T + (w[name + ".bias"] if name + ".bias" in w else 0)

    x = w["model.embed_tokens.weight"][ids]
    out, experts, routing = [], [], []
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        inside = layers is None or l in layers
        h = x if t == "olmo2" else rms(x, w[p + "input_layernorm.weight"], eps)
        if t == "phi3":
            qkv = lin(h, p + "self_attn.qkv_proj")
            q, k, v = qkv[:, :qd], qkv[:, qd:qd + kvd], qkv[:, qd + kvd:]
        else:
            q, k = lin(h, p + "self_attn.q_proj"), lin(h, p + "self_attn.k_proj")
            v = lin(h, p + "self_attn.v_proj")
        if t == "olmo2":
            q = rms(q, w[p + "self_attn.q_norm.weight"], eps)
            k = rms(k, w[p + "self_attn.k_norm.weight"], eps)
        q = q.reshape(n, H, hd).transpose(1, 0, 2)
        k = k.reshape(n, KV, hd).transpose(1, 0, 2)
        v = v.reshape(n, KV, hd).transpose(1, 0, 2)
        if rotary or not inside:
            q, k = rope(q, f, factor), rope(k, f, factor)
        k, v = np.repeat(k, H // KV, axis=0), np.repeat(v, H // KV, axis=0)
        s = q @ k.transpose(0, 2, 1)
        if scale or not inside:
            s = s / math.sqrt(hd)
        if inside:
            s = s / temperature
        if mask or not inside:
            i, j = np.arange(n)[:, None], np.arange(n)[None, :]
            allowed = j <= i
            if window:
                allowed &= j > i - window
            s = np.where(allowed, s, -np.inf)
        e = np.exp(s - s.max(-1, keepdims=True))
        att = e / e.sum(-1, keepdims=True)
        out.append(att)
        a = lin((att @ v).transpose(1, 0, 2).reshape(n, qd), p + "self_attn.o_proj")
        if t == "olmo2":
            x = x + rms(a, w[p + "post_attention_layernorm.weight"], eps)
            g, u = lin(x, p + "mlp.gate_proj"), lin(x, p + "mlp.up_proj")
            mlp = lin(silu(g) * u, p + "mlp.down_proj")
            x = x + rms(mlp, w[p + "post_feedforward_layernorm.weight"], eps)
            continue
        x = x + a
        h2 = rms(x, w[p + "post_attention_layernorm.weight"], eps)
        if t == "phi3":
            gu = lin(h2, p + "mlp.gate_up_proj")
            g, u = np.split(gu, 2, axis=-1)
            x = x + lin(silu(g) * u, p + "mlp.down_proj")
            continue
        # Mixtral's sparse MoE: softmax over every expert, top-k, renormalised.
        m, k_top = p + "block_sparse_moe.", c["num_experts_per_tok"]
        logits = lin(h2, m + "gate")
        probs = np.exp(logits - logits.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        chosen = np.argsort(-probs, axis=-1, kind="stable")[:, :k_top]
        wts = np.take_along_axis(probs, chosen, -1)
        wts /= wts.sum(-1, keepdims=True)
        experts.append(chosen)
        routing.append(wts)
        moe = np.zeros_like(x)
        for r in range(n):
            for e, wt in zip(chosen[r], wts[r]):
                xe = h2[r]
                y = (silu(xe @ w[m + f"experts.{e}.w1.weight"].T) *
                     (xe @ w[m + f"experts.{e}.w3.weight"].T)) @ w[m + f"experts.{e}.w2.weight"].T
                moe[r] += wt * y
        x = x + moe
    last = rms(x[-1], w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if c.get("tie_word_embeddings") else w["lm_head.weight"]
    routers = (np.array(experts), np.array(routing)) if experts else None
    return np.array(out), head @ last, routers


def tiny_folder(folder, seed, c, dtype="F32"):
    """A whole tiny folder of config C; returns the float32 values its files hold."""
    used = write_model(folder, weights(np.random.default_rng(seed), c), c, dtype)
    json.dump(tokenizer_json(c["vocab_size"]), open(os.path.join(folder, "tokenizer.json"), "w"))
    return used


def phi3_longrope(c, **extra):
    """C with a longrope rope_scaling (original context 8 of 64)."""
    half = head_dim(c) // 2
    r = {"type": "longrope", "short_factor": list(np.linspace(1.0, 1.5, half)),
         "long_factor": list(np.linspace(1.0, 6.0, half))} | extra
    return c | {"rope_scaling": r, "original_max_position_embeddings": 8}


if __name__ == "__main__":
    extra = {"max_position_embeddings": int(sys.argv[4])} if len(sys.argv) > 4 else {}
    tiny_folder(sys.argv[1], int(sys.argv[2]), config(sys.argv[3], **extra))
