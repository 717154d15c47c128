# AttnScope — tiny random GPT-2s in the Hugging Face layout, and GPT-2 in numpy: the independent
# reference of gpt2_reference_test.py and tests/cli/gpt2_model_test.sh. GPL-3.0-or-later.
# The numpy side follows the GPT-2 paper / Hugging Face's modeling_gpt2 formulas directly, not
# the C++ code's structure.
#   gpt2_tiny.py DIR [SEED] [LAYERS]: writes a tiny GPT-2 folder (weights, config, a byte-level
#       vocabulary with two merges) into DIR.
#   gpt2_tiny.py DIR SEED LAYERS --reference IDS [--no-scale] [--temperature T] [--no-mask]
#       [--layers L,L]: prints numpy's weights [L][H][n][n] and logits of that folder as JSON.
import json
import os
import struct
import sys

import numpy as np

L, H, D, NPOS, VOCAB = 2, 2, 8, 16, 40


def weights(rng, vocab=VOCAB, layers=L, inner=4 * D):
    """Random weights; INNER is the MLP's width (config.json's n_inner, 4 · n_embd by default)."""
    w = {"wte.weight": rng.normal(0, 0.5, (vocab, D)), "wpe.weight": rng.normal(0, 0.3, (NPOS, D)),
         "ln_f.weight": 1 + rng.normal(0, 0.1, D), "ln_f.bias": rng.normal(0, 0.1, D)}
    for l in range(layers):
        p = f"h.{l}."
        w |= {p + "ln_1.weight": 1 + rng.normal(0, 0.1, D), p + "ln_1.bias": rng.normal(0, 0.1, D),
              p + "attn.c_attn.weight": rng.normal(0, 0.6, (D, 3 * D)),
              p + "attn.c_attn.bias": rng.normal(0, 0.1, 3 * D),
              p + "attn.c_proj.weight": rng.normal(0, 0.3, (D, D)),
              p + "attn.c_proj.bias": rng.normal(0, 0.1, D),
              p + "ln_2.weight": 1 + rng.normal(0, 0.1, D), p + "ln_2.bias": rng.normal(0, 0.1, D),
              p + "mlp.c_fc.weight": rng.normal(0, 0.3, (D, inner)),
              p + "mlp.c_fc.bias": rng.normal(0, 0.1, inner),
              p + "mlp.c_proj.weight": rng.normal(0, 0.3, (inner, D)),
              p + "mlp.c_proj.bias": rng.normal(0, 0.1, D)}
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


def write_model(folder, w, dtype="F32", prefix="", extra=None, config=None, truncate=0,
                vocab_size=None, header_text=None):
    """Writes config.json and model.safetensors; HEADER_TEXT, when given, turns the header dict
    into its JSON text (to plant what json.dumps cannot write, such as a repeated name)."""
    os.makedirs(folder, exist_ok=True)
    layers = len({k.split(".")[1] for k in w if k.startswith("h.")})
    cfg = {"model_type": "gpt2", "n_layer": layers, "n_head": H, "n_embd": D, "n_positions": NPOS,
           "vocab_size": vocab_size or VOCAB, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}
    cfg |= config or {}
    json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
    header, blobs, offset, used = {}, [], 0, {}
    items = [(prefix + k, v, dtype) for k, v in w.items()]
    items += [(k, v, dt) for k, (v, dt) in (extra or {}).items()]
    for name, value, dt in items:
        if isinstance(value, bytes):  # a raw buffer such as attn.bias (BOOL)
            raw, shape = value, [len(value)]
        else:
            raw, used[name[len(prefix):]] = encode(value, dt)
            shape = list(value.shape)
        header[name] = {"dtype": dt, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = (header_text or json.dumps)(header).encode()
    text += b" " * (-len(text) % 8)
    data = struct.pack("<Q", len(text)) + text + b"".join(blobs)
    open(os.path.join(folder, "model.safetensors"), "wb").write(data[:len(data) - truncate])
    return used


def layer_norm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def reference(w, ids, scale=True, temperature=1.0, mask=True, layers=None, outputs=None,
              scale_attn_weights=True, scale_attn_by_inverse_layer_idx=False):
    """GPT-2 in numpy (float64), following modeling_gpt2: returns weights [L][H] and logits;
    OUTPUTS, a list when given, receives each layer's per-head α·V [H, n, d_k]. The last two
    are config.json's fields of those names (GPT2Attention._attn: scores ÷ √d_k when the first,
    then ÷ (layer + 1) when the second); SCALE false (the control) drops both factors."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    n, dk = len(ids), D // H
    x = w["wte.weight"][ids] + w["wpe.weight"][:n]
    all_w = []
    for l in range(len({k.split(".")[1] for k in w if k.startswith("h.")})):
        p = f"h.{l}."
        inside = layers is None or l in layers
        a = layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"])
        q, k, v = np.split(a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"], 3, axis=1)
        q, k, v = (t.reshape(n, H, dk).transpose(1, 0, 2) for t in (q, k, v))
        s = q @ k.transpose(0, 2, 1)
        if not inside or scale:
            if scale_attn_weights:
                s = s / np.sqrt(dk)
            if scale_attn_by_inverse_layer_idx:
                s = s / (l + 1)
        if inside:
            s = s / temperature
        if not inside or mask:
            s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
        e = np.exp(s - s.max(-1, keepdims=True))
        att = e / e.sum(-1, keepdims=True)
        all_w.append(att)
        if outputs is not None:
            outputs.append(att @ v)
        o = (att @ v).transpose(1, 0, 2).reshape(n, D)
        x = x + o @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        m = layer_norm(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"])
        hdn = m @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]
        hdn = 0.5 * hdn * (1 + np.tanh(np.sqrt(2 / np.pi) * (hdn + 0.044715 * hdn ** 3)))
        x = x + hdn @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    last = layer_norm(x[-1], w["ln_f.weight"], w["ln_f.bias"])
    return np.array(all_w), w["wte.weight"] @ last


def byte_symbols():
    """GPT-2's bytes_to_unicode, written out: printable Latin-1 bytes stand for themselves."""
    printable = set(range(33, 127)) | set(range(161, 173)) | set(range(174, 256))
    sym, extra = {}, 0
    for b in range(256):
        if b in printable:
            sym[b] = chr(b)
        else:
            sym[b] = chr(256 + extra)
            extra += 1
    return sym


def write_tokenizer(folder, size=258):
    """A byte-level vocabulary with two merges: a token per byte, then "he" and " t" (ids 256 and
    257); a SIZE under 258 keeps the first SIZE − 2 bytes' tokens, for a model of that vocab_size.
    Returns the vocabulary's size."""
    sym, n = byte_symbols(), size - 2
    vocab = {sym[b]: b for b in range(n)} | {"he": n, sym[32] + "t": n + 1}
    json.dump(vocab, open(os.path.join(folder, "vocab.json"), "w"))
    open(os.path.join(folder, "merges.txt"), "w").write(f"#version: 0.2\nh e\n{sym[32]} t\n")
    return len(vocab)


TOKENIZER_VOCAB = 258


def tiny_folder(folder, seed=11, layers=L):
    """A whole tiny GPT-2 folder (weights, config and tokenizer); returns its float32 weights."""
    w = weights(np.random.default_rng(seed), vocab=TOKENIZER_VOCAB, layers=layers)
    write_model(folder, w, vocab_size=TOKENIZER_VOCAB)
    write_tokenizer(folder)
    return w


if __name__ == "__main__":
    args = sys.argv[1:]
    folder, seed = args[0], int(args[1]) if len(args) > 1 else 11
    layers = int(args[2]) if len(args) > 2 else L
    w = tiny_folder(folder, seed, layers)
    if "--reference" in args:
        ids = [int(t) for t in args[args.index("--reference") + 1].split(",")]
        ref = {"scale": "--no-scale" not in args, "mask": "--no-mask" not in args}
        if "--temperature" in args:
            ref["temperature"] = float(args[args.index("--temperature") + 1])
        if "--layers" in args:
            ref["layers"] = [int(t) for t in args[args.index("--layers") + 1].split(",")]
        att, logits = reference(w, ids, **ref)
        print(json.dumps({"weights": att.tolist(), "logits": logits.tolist()}))
