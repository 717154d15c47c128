# AttnScope — tiny random Llama-family models (llama, mistral, qwen2, qwen3) in the Hugging Face
# layout, and the family's forward pass in numpy: the independent reference of
# llama_reference_test.py. GPL-3.0-or-later.
# The numpy side follows transformers' modeling_llama / _mistral / _qwen2 / _qwen3 formulas
# (RMSNorm, rotate_half RoPE, repeat_kv, SwiGLU) directly, not the C++ code's structure.
#   llama_tiny.py DIR [SEED] [MODEL_TYPE] [--layers L] [--dtype BF16] [--tokens N]: writes a
#       whole tiny folder (config.json, model.safetensors and a tokenizer.json of whole words) into
#       DIR; with --tokens the tokenizer has only N of the vocab_size ids, and the rows past it are
#       padding whose logit beats every token's (loud_padding).
import json
import math
import os
import struct
import sys

import numpy as np

# The tokenizer.json of the tiny folders: whole words split at spaces (WordPiece), then w<i>.
WORDS = ["[UNK]", "the", "cat", "sat", "on", "mat", "a", "dog", "ran", "far", "and", "then"]


def config(model_type="llama", layers=2, hidden=32, heads=4, kv_heads=2, head_dim=None,
           inter=48, vocab=48, **extra):
    c = {"model_type": model_type, "num_hidden_layers": layers, "hidden_size": hidden,
         "num_attention_heads": heads, "num_key_value_heads": kv_heads,
         "intermediate_size": inter, "vocab_size": vocab, "max_position_embeddings": 64,
         "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "hidden_act": "silu",
         "tie_word_embeddings": False}
    if head_dim:
        c["head_dim"] = head_dim
    return c | extra


def head_dim(c):
    return c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]


def biases(c):
    """(q/k/v bias, o bias, mlp bias) as each family's modeling file builds its Linears."""
    t = c["model_type"]
    if t == "qwen2":
        return True, False, False
    if t == "mistral":
        return False, False, False
    ab = c.get("attention_bias", False)
    return ab, ab, t == "llama" and c.get("mlp_bias", False)


def weights(rng, c):
    d, hd, ff, v = c["hidden_size"], head_dim(c), c["intermediate_size"], c["vocab_size"]
    qd, kvd = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd
    qkv_b, o_b, mlp_b = biases(c)
    w = {"model.embed_tokens.weight": rng.normal(0, 0.6, (v, d)),
         "model.norm.weight": 1 + rng.normal(0, 0.1, d)}
    if not c.get("tie_word_embeddings", False):
        w["lm_head.weight"] = rng.normal(0, 0.4, (v, d))
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        w[p + "input_layernorm.weight"] = 1 + rng.normal(0, 0.1, d)
        w[p + "post_attention_layernorm.weight"] = 1 + rng.normal(0, 0.1, d)
        for name, rows, cols, bias in (("self_attn.q_proj", qd, d, qkv_b),
                                       ("self_attn.k_proj", kvd, d, qkv_b),
                                       ("self_attn.v_proj", kvd, d, qkv_b),
                                       ("self_attn.o_proj", d, qd, o_b),
                                       ("mlp.gate_proj", ff, d, mlp_b), ("mlp.up_proj", ff, d, mlp_b),
                                       ("mlp.down_proj", d, ff, mlp_b)):
            w[p + name + ".weight"] = rng.normal(0, 0.8 / math.sqrt(cols), (rows, cols))
            if bias:
                w[p + name + ".bias"] = rng.normal(0, 0.2, rows)
        if c["model_type"] == "qwen3":
            w[p + "self_attn.q_norm.weight"] = 1 + rng.normal(0, 0.1, hd)
            w[p + "self_attn.k_norm.weight"] = 1 + rng.normal(0, 0.1, hd)
    return {k: v.astype(np.float32) for k, v in w.items()}


def encode(a, dtype):
    """A float32 array as the bytes of DTYPE, and the float32 values those bytes stand for."""
    if dtype == "F32":
        return a.tobytes(), a
    if dtype == "F16":
        h = a.astype(np.float16)
        return h.tobytes(), h.astype(np.float32)
    bits = a.view(np.uint32)  # BF16: the top half of float32, rounded to nearest even
    top = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return top.tobytes(), (top.astype(np.uint32) << 16).view(np.float32)


def safetensors_bytes(items):
    """ITEMS: (name, raw bytes, dtype, shape) → the bytes of a .safetensors file."""
    header, blobs, offset = {}, [], 0
    for name, raw, dt, shape in items:
        header[name] = {"dtype": dt, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def write_model(folder, w, c, dtype="F32", shards=1):
    """config.json and model.safetensors (or SHARDS shards and model.safetensors.index.json);
    returns the float32 values the files hold (after rounding to DTYPE)."""
    os.makedirs(folder, exist_ok=True)
    json.dump(c, open(os.path.join(folder, "config.json"), "w"))
    used, encoded = {}, []
    for name, value in w.items():
        raw, used[name] = encode(value, dtype)
        encoded.append((name, raw, dtype, value.shape))
    if shards == 1:
        open(os.path.join(folder, "model.safetensors"), "wb").write(safetensors_bytes(encoded))
        return used
    weight_map = {}
    for s in range(shards):
        part = encoded[s::shards]
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        open(os.path.join(folder, file), "wb").write(safetensors_bytes(part))
        weight_map |= {name: file for name, *_ in part}
    json.dump({"metadata": {"total_size": sum(len(r) for _, r, _, _ in encoded)},
               "weight_map": weight_map},
              open(os.path.join(folder, "model.safetensors.index.json"), "w"))
    return used


def inv_freq(c):
    """RoPE's inverse frequencies with rope_scaling (transformers' modeling_rope_utils)."""
    hd = head_dim(c)
    f = 1.0 / c.get("rope_theta", 10000.0) ** (np.arange(0, hd, 2) / hd)
    r = c.get("rope_scaling") or {}
    kind = r.get("rope_type", r.get("type", "default"))
    if kind == "linear":
        f = f / r["factor"]
    elif kind == "llama3":
        factor, lo, hi = r["factor"], r["low_freq_factor"], r["high_freq_factor"]
        old = r["original_max_position_embeddings"]
        wavelen = 2 * math.pi / f
        scaled = np.where(wavelen > old / lo, f / factor, f)
        smooth = (old / wavelen - lo) / (hi - lo)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = ~(wavelen < old / hi) & ~(wavelen > old / lo)
        f = np.where(medium, smoothed, scaled)
    return f


def rms(x, w, eps):
    return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps) * w


def rope(x, f):
    """x [heads, n, hd] at positions 0…n−1: x·cos + rotate_half(x)·sin."""
    n, half = x.shape[1], x.shape[2] // 2
    ang = np.arange(n)[:, None] * f[None, :]
    cos, sin = np.cos(np.concatenate([ang, ang], -1)), np.sin(np.concatenate([ang, ang], -1))
    rot = np.concatenate([-x[..., half:], x[..., :half]], -1)
    return x * cos + rot * sin


def reference(w, c, ids, scale=True, temperature=1.0, mask=True, layers=None, rotary=True):
    """The forward pass in float64 with the controls inside LAYERS (all when None); returns
    attention weights [L, H, n, n] and the last position's logits."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    eps, hd = c["rms_norm_eps"], head_dim(c)
    H, KV, n = c["num_attention_heads"], c["num_key_value_heads"], len(ids)
    qkv_b, o_b, mlp_b = biases(c)
    f = inv_freq(c)
    window = c.get("sliding_window", 4096) if c["model_type"] == "mistral" else None

    def lin(x, name, bias):
        return x @ w[name + ".weight"].T + (w[name + ".bias"] if bias else 0)

    x = w["model.embed_tokens.weight"][ids]
    out = []
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        inside = layers is None or l in layers
        h = rms(x, w[p + "input_layernorm.weight"], eps)
        q = lin(h, p + "self_attn.q_proj", qkv_b).reshape(n, H, hd).transpose(1, 0, 2)
        k = lin(h, p + "self_attn.k_proj", qkv_b).reshape(n, KV, hd).transpose(1, 0, 2)
        v = lin(h, p + "self_attn.v_proj", qkv_b).reshape(n, KV, hd).transpose(1, 0, 2)
        if c["model_type"] == "qwen3":
            q = rms(q, w[p + "self_attn.q_norm.weight"], eps)
            k = rms(k, w[p + "self_attn.k_norm.weight"], eps)
        if rotary or not inside:
            q, k = rope(q, f), rope(k, f)
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
        z = (att @ v).transpose(1, 0, 2).reshape(n, H * hd)
        x = x + lin(z, p + "self_attn.o_proj", o_b)
        h2 = rms(x, w[p + "post_attention_layernorm.weight"], eps)
        g, u = lin(h2, p + "mlp.gate_proj", mlp_b), lin(h2, p + "mlp.up_proj", mlp_b)
        x = x + lin(g / (1 + np.exp(-g)) * u, p + "mlp.down_proj", mlp_b)
    last = rms(x[-1], w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if c.get("tie_word_embeddings") else w["lm_head.weight"]
    return np.array(out), head @ last


def tokenizer_json(vocab_size):
    """A tokenizer.json of WORDS then w<i> up to VOCAB_SIZE, split at whitespace."""
    vocab = {w: i for i, w in enumerate(WORDS)}
    for i in range(len(WORDS), vocab_size):
        vocab[f"w{i}"] = i
    return {"version": "1.0", "added_tokens": [], "normalizer": None,
            "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": None,
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": False},
            "model": {"type": "WordPiece", "unk_token": "[UNK]",
                      "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
                      "vocab": vocab}}


def loud_padding(w, c, tokens):
    """Makes the padding rows [TOKENS, vocab) the likeliest at every position, by hand: dimension
    0 of the residual stream is 4 for every token and no block writes to it (o_proj's and
    down_proj's row 0 are zero; Qwen2's o_proj and MLP have no bias), so after the final RMSNorm
    (gain 1 there) it is 4 / rms > 0; a padding row is 1000 · e_0, its logit 4000 / rms, while a
    token's random row gives a logit of about ±10."""
    w["model.embed_tokens.weight"][:, 0] = 4.0
    w["model.norm.weight"][0] = 1.0
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        w[p + "self_attn.o_proj.weight"][0, :] = 0.0
        w[p + "mlp.down_proj.weight"][0, :] = 0.0
    head = w["model.embed_tokens.weight"] if c.get("tie_word_embeddings") else w["lm_head.weight"]
    head[tokens:, :] = 0.0
    head[tokens:, 0] = 1000.0


def tiny_folder(folder, seed, c, dtype="F32", tokens=None):
    """A whole tiny folder of config C (weights, config and tokenizer.json; the tokenizer of
    TOKENS ids when given, the rows past them loud padding); returns the float32 values its
    files hold."""
    w = weights(np.random.default_rng(seed), c)
    if tokens is not None:
        loud_padding(w, c, tokens)
    used = write_model(folder, w, c, dtype)
    json.dump(tokenizer_json(tokens or c["vocab_size"]),
              open(os.path.join(folder, "tokenizer.json"), "w"))
    return used


if __name__ == "__main__":
    args = sys.argv[1:]
    opt = lambda name, default: args[args.index(name) + 1] if name in args else default  # noqa
    plain = [a for i, a in enumerate(args) if not a.startswith("--")
             and (i == 0 or not args[i - 1].startswith("--"))]
    kind = plain[2] if len(plain) > 2 else "llama"
    tiny_folder(plain[0], int(plain[1]) if len(plain) > 1 else 11,
                config(kind, layers=int(opt("--layers", 2))), opt("--dtype", "F32"),
                int(opt("--tokens", 0)) or None)
