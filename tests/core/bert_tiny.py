#!/usr/bin/env python3
# AttnScope — tiny random BERTs in the Hugging Face layout, and BERT in numpy: the independent
# reference of bert_reference_test.py and the app's fill-mask test. GPL-3.0-or-later.
# The numpy side follows the BERT paper / Hugging Face's modeling_bert formulas directly (post-LN
# encoder, exact erf GELU, masked-LM head tied to the word embeddings), not the C++ code.
#   bert_tiny.py DIR [SEED] [--no-head] [--dtype F16]: writes a tiny BertForMaskedLM folder
#       (config.json, model.safetensors, vocab.txt) into DIR; --no-head: a BertModel folder.
#   bert_tiny.py DIR SEED --reference IDS [--no-scale] [--temperature T] [--causal]
#       [--layers L,L]: also prints numpy's weights [L][H][n][n] and logits as JSON.
import json
import math
import os
import struct
import sys

import numpy as np

L, H, D, INNER, NPOS, TYPES = 2, 2, 8, 16, 24, 2
WORDS = ["[PAD]", "[unused0]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on",
         "mat", "a", "dog", "ran", "is", "of", "paris", "capital", "france", "play", ".", ",",
         "!", "?", "##s", "##ing", "##ed", "h", "##e", "##l", "##o", "un", "##aff", "##able"]
VOCAB = 40  # the model's vocab_size: padded beyond the tokenizer's 34 words, as real ones are
CLS, SEP, MASK = WORDS.index("[CLS]"), WORDS.index("[SEP]"), WORDS.index("[MASK]")
EPS = 1e-12


def weights(rng, head=True, untied=False):
    """Float32 weights in nn.Linear's [out, in] layout, named without the "bert." prefix."""
    n = lambda *shape, s=0.5: rng.normal(0, s, shape)  # noqa: E731
    w = {"embeddings.word_embeddings.weight": n(VOCAB, D),
         "embeddings.position_embeddings.weight": n(NPOS, D, s=0.3),
         "embeddings.token_type_embeddings.weight": n(TYPES, D, s=0.3),
         "embeddings.LayerNorm.weight": 1 + n(D, s=0.1), "embeddings.LayerNorm.bias": n(D, s=0.1)}
    for l in range(L):
        p = f"encoder.layer.{l}."
        for m in ("query", "key", "value"):
            w |= {p + f"attention.self.{m}.weight": n(D, D, s=0.4),
                  p + f"attention.self.{m}.bias": n(D, s=0.1)}
        w |= {p + "attention.output.dense.weight": n(D, D, s=0.3),
              p + "attention.output.dense.bias": n(D, s=0.1),
              p + "attention.output.LayerNorm.weight": 1 + n(D, s=0.1),
              p + "attention.output.LayerNorm.bias": n(D, s=0.1),
              p + "intermediate.dense.weight": n(INNER, D, s=0.4),
              p + "intermediate.dense.bias": n(INNER, s=0.1),
              p + "output.dense.weight": n(D, INNER, s=0.3), p + "output.dense.bias": n(D, s=0.1),
              p + "output.LayerNorm.weight": 1 + n(D, s=0.1),
              p + "output.LayerNorm.bias": n(D, s=0.1)}
    if head:
        w |= {"cls.predictions.transform.dense.weight": n(D, D, s=0.4),
              "cls.predictions.transform.dense.bias": n(D, s=0.1),
              "cls.predictions.transform.LayerNorm.weight": 1 + n(D, s=0.1),
              "cls.predictions.transform.LayerNorm.bias": n(D, s=0.1),
              "cls.predictions.bias": n(VOCAB, s=0.2)}
        if untied:
            w["cls.predictions.decoder.weight"] = n(VOCAB, D)
    else:
        w |= {"pooler.dense.weight": n(D, D), "pooler.dense.bias": n(D, s=0.1)}
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


def write_model(folder, w, dtype="F32", prefix=True, config=None, gamma_beta=False):
    """Writes config.json, model.safetensors (8-byte header length, JSON header, raw bytes) and
    vocab.txt. PREFIX: "bert." before the encoder's names (BertForMaskedLM's layout); the int64
    position_ids buffer goes in as HF writes it. Returns the float32 values the file holds."""
    os.makedirs(folder, exist_ok=True)
    cfg = {"model_type": "bert", "architectures": ["BertForMaskedLM" if prefix else "BertModel"],
           "num_hidden_layers": L, "num_attention_heads": H, "hidden_size": D,
           "intermediate_size": INNER, "max_position_embeddings": NPOS, "type_vocab_size": TYPES,
           "vocab_size": VOCAB, "layer_norm_eps": EPS, "hidden_act": "gelu",
           "position_embedding_type": "absolute", "pad_token_id": 0}
    json.dump(cfg | (config or {}), open(os.path.join(folder, "config.json"), "w"))
    open(os.path.join(folder, "vocab.txt"), "w").write("\n".join(WORDS) + "\n")
    header, blobs, offset, used = {}, [], 0, {}
    pre = "bert." if prefix else ""
    items = [(pre + "embeddings.position_ids", np.arange(NPOS, dtype=np.int64)[None, :].tobytes(),
              "I64", [1, NPOS])]
    for k, v in w.items():
        raw, used[k] = encode(v, dtype)
        name = k if k.startswith("cls.") else pre + k
        if gamma_beta and name.endswith("LayerNorm.weight"):
            name = name[:-6] + "gamma"
        if gamma_beta and name.endswith("LayerNorm.bias"):
            name = name[:-4] + "beta"
        items.append((name, raw, dtype, list(v.shape)))
    for name, raw, dt, shape in items:
        header[name] = {"dtype": dt, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    open(os.path.join(folder, "model.safetensors"), "wb").write(
        struct.pack("<Q", len(text)) + text + b"".join(blobs))
    return used


def layer_norm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + EPS) * g + b


def gelu(x):
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def reference(w, ids, scale=True, temperature=1.0, causal=False, layers=None):
    """BERT in numpy (float64), following modeling_bert: weights [L][H][n][n], and the masked-LM
    logits at the first [MASK] (the last position when there is none; None without a head)."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    n, dk = len(ids), D // H
    types = np.zeros(n, int)
    seps = [i for i, t in enumerate(ids) if t == SEP]
    if seps and seps[0] < n - 1:
        types[seps[0] + 1:] = 1
    e = "embeddings."
    x = w[e + "word_embeddings.weight"][ids] + w[e + "position_embeddings.weight"][:n] + \
        w[e + "token_type_embeddings.weight"][types]
    x = layer_norm(x, w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"])
    lin = lambda a, name: a @ w[name + ".weight"].T + w[name + ".bias"]  # noqa: E731
    all_w = []
    for l in range(L):
        p = f"encoder.layer.{l}."
        inside = layers is None or l in layers
        q, k, v = (lin(x, p + f"attention.self.{m}").reshape(n, H, dk).transpose(1, 0, 2)
                   for m in ("query", "key", "value"))
        s = q @ k.transpose(0, 2, 1)
        if not inside or scale:
            s = s / np.sqrt(dk)
        if inside:
            s = s / temperature
        if inside and causal:
            s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
        ex = np.exp(s - s.max(-1, keepdims=True))
        att = ex / ex.sum(-1, keepdims=True)
        all_w.append(att)
        ctx = (att @ v).transpose(1, 0, 2).reshape(n, D)
        x = layer_norm(x + lin(ctx, p + "attention.output.dense"),
                       w[p + "attention.output.LayerNorm.weight"],
                       w[p + "attention.output.LayerNorm.bias"])
        hdn = gelu(lin(x, p + "intermediate.dense"))
        x = layer_norm(x + lin(hdn, p + "output.dense"), w[p + "output.LayerNorm.weight"],
                       w[p + "output.LayerNorm.bias"])
    if "cls.predictions.bias" not in w:
        return np.array(all_w), None
    at = ids.index(MASK) if MASK in ids else n - 1
    c = "cls.predictions."
    t = layer_norm(gelu(lin(x[at], c + "transform.dense")), w[c + "transform.LayerNorm.weight"],
                   w[c + "transform.LayerNorm.bias"])
    decoder = w.get(c + "decoder.weight", w[e + "word_embeddings.weight"])
    return np.array(all_w), decoder @ t + w[c + "bias"]


if __name__ == "__main__":
    args = sys.argv[1:]
    folder = args[0]
    seed = int(args[1]) if len(args) > 1 and not args[1].startswith("--") else 11
    head = "--no-head" not in args
    dtype = args[args.index("--dtype") + 1] if "--dtype" in args else "F32"
    used = write_model(folder, weights(np.random.default_rng(seed), head=head), dtype=dtype,
                       prefix=head)
    if "--reference" in args:
        ids = [int(t) for t in args[args.index("--reference") + 1].split(",")]
        ref = {"scale": "--no-scale" not in args, "causal": "--causal" in args}
        if "--temperature" in args:
            ref["temperature"] = float(args[args.index("--temperature") + 1])
        if "--layers" in args:
            ref["layers"] = [int(t) for t in args[args.index("--layers") + 1].split(",")]
        att, logits = reference(used, ids, **ref)
        print(json.dumps({"weights": att.tolist(),
                          "logits": None if logits is None else logits.tolist()}))
