#!/usr/bin/env python3
# AttnScope — the benchmarks of issue #38: `attnscope compute` (open the model, run 64 tokens,
# write token_ids, weights [L,H,n,n] and logits) on a random Gemma-2-2B-shaped model written as a
# BF16 Hugging Face folder and as a Q4_K_M GGUF file (the mix of types llama.cpp's quantiser
# gives Q4_K_M), or the same for a Qwen2.5-0.5B shape. The weights are random (no real weights
# can be had here); the shapes and the types are what cost. GPL-3.0-or-later.
#   open_compute_bench.py write DIR --shape gemma2-2b|qwen05|tiny --format bf16|q4km
#       writes DIR/model (config.json, model.safetensors, tokenizer.json) or DIR/model.gguf,
#       and DIR/text.txt: a text of 64 tokens (63 for the GGUF, whose tokenizer adds <bos>)
#   open_compute_bench.py text DIR      prints the text (for `attnscope compute --text`)
#   open_compute_bench.py check DIR OUT.npz   checks OUT.npz's shapes and that it is finite
import json
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "core"))

TOKENS = 64
# Gemma 2 2B (google/gemma-2-2b's config.json) and Qwen2.5-0.5B; tiny: the smoke run's shape,
# rows of whole 256-value blocks.
SHAPES = {
    "gemma2-2b": dict(arch="gemma2", L=26, d=2304, H=8, KV=4, hd=256, ff=9216, V=256000),
    "qwen05": dict(arch="qwen2", L=24, d=896, H=14, KV=2, hd=64, ff=4864, V=151936),
    "tiny": dict(arch="gemma2", L=2, d=256, H=4, KV=2, hd=64, ff=512, V=300),
}
WORDS = ["the", "cat", "sat", "on", "a"]


def config(s):
    c = {"model_type": s["arch"], "num_hidden_layers": s["L"], "hidden_size": s["d"],
         "num_attention_heads": s["H"], "num_key_value_heads": s["KV"], "head_dim": s["hd"],
         "intermediate_size": s["ff"], "vocab_size": s["V"], "max_position_embeddings": 8192,
         "rms_norm_eps": 1e-6, "tie_word_embeddings": True, "torch_dtype": "bfloat16"}
    if s["arch"] == "gemma2":
        c |= {"hidden_activation": "gelu_pytorch_tanh", "query_pre_attn_scalar": s["hd"],
              "sliding_window": 4096, "rope_theta": 10000.0, "attn_logit_softcapping": 50.0,
              "final_logit_softcapping": 30.0}
    else:
        c |= {"hidden_act": "silu", "rope_theta": 1000000.0}
    return c


def tensors(s):
    """(Hugging Face name, rows, cols or 0 for a vector) of every tensor, as transformers writes
    them."""
    d, hd, ff = s["d"], s["hd"], s["ff"]
    q, kv = s["H"] * hd, s["KV"] * hd
    out = [("model.embed_tokens.weight", s["V"], d)]
    for l in range(s["L"]):
        p = f"model.layers.{l}."
        norms = (["input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                  "post_feedforward_layernorm"] if s["arch"] == "gemma2"
                 else ["input_layernorm", "post_attention_layernorm"])
        out += [(p + n + ".weight", d, 0) for n in norms]
        out += [(p + "self_attn.q_proj.weight", q, d), (p + "self_attn.k_proj.weight", kv, d),
                (p + "self_attn.v_proj.weight", kv, d)]
        if s["arch"] == "qwen2":
            out += [(p + "self_attn.q_proj.bias", q, 0), (p + "self_attn.k_proj.bias", kv, 0),
                    (p + "self_attn.v_proj.bias", kv, 0)]
        out += [(p + "self_attn.o_proj.weight", d, q), (p + "mlp.gate_proj.weight", ff, d),
                (p + "mlp.up_proj.weight", ff, d), (p + "mlp.down_proj.weight", d, ff)]
    out.append(("model.norm.weight", d, 0))
    return out


class Pool:
    """Random float32 values of standard deviation 1, reused from a random offset for each
    tensor: writing billions of fresh normal values would take minutes. The pool's length is
    odd, so rows of a matrix do not repeat one another."""

    def __init__(self, rng, n=(1 << 24) + 11):
        self.rng, self.values = rng, rng.standard_normal(n, dtype=np.float32)

    def take(self, count):
        at = int(self.rng.integers(0, len(self.values)))
        reps = (at + count) // len(self.values) + 1
        return np.tile(self.values, reps)[at:at + count] if reps > 1 else self.values[at:at + count]


def vector_values(name, rows, arch, pool):
    if name.endswith(".bias"):
        return pool.take(rows) * np.float32(0.02)
    # Gemma stores w of (1 + w); Qwen's gains are near 1.
    return pool.take(rows) * np.float32(0.1) + np.float32(0 if arch == "gemma2" else 1)


def bf16(v):
    """float32 values → their BF16 bytes (truncated: the values are random anyway)."""
    return (v.view(np.uint32) >> 16).astype(np.uint16).tobytes()


def write_folder(folder, s):
    from llama_tiny import tokenizer_json
    os.makedirs(folder, exist_ok=True)
    json.dump(config(s), open(os.path.join(folder, "config.json"), "w"))
    vocab = tokenizer_json(s["V"])
    json.dump(vocab, open(os.path.join(folder, "tokenizer.json"), "w"))
    pool = Pool(np.random.default_rng(7))
    header, offset = {}, 0
    all_ = tensors(s)
    for name, rows, cols in all_:
        n = rows * max(cols, 1)
        header[name] = {"dtype": "BF16", "shape": [rows, cols] if cols else [rows],
                        "data_offsets": [offset, offset + 2 * n]}
        offset += 2 * n
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for name, rows, cols in all_:
            if cols == 0:
                f.write(bf16(vector_values(name, rows, s["arch"], pool)))
                continue
            step = max(1, (1 << 22) // cols)  # rows a chunk: a few MB at a time
            for r in range(0, rows, step):
                count = min(step, rows - r) * cols
                f.write(bf16(pool.take(count) * np.float32(0.8 / np.sqrt(cols))))
    return " ".join(WORDS[i % len(WORDS)] for i in range(TOKENS))


def use_more_bits(i, n):
    """llama.cpp's use_more_bits: the layers Q4_K_M gives Q6_K's attn_v and ffn_down."""
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def q4km_type(name, cols, layers):
    """The type llama.cpp's quantiser gives tensor NAME under Q4_K_M: the tied embedding (the
    output) Q6_K; attn_v and ffn_down Q6_K on use_more_bits' layers; the rest Q4_K; rows that
    are not whole 256-value blocks fall back to Q8_0 (for Q6_K) or Q5_0 (for Q4_K)."""
    if name == "model.embed_tokens.weight":
        kind = "Q6_K"
    elif ".v_proj." in name or ".down_proj." in name:
        kind = "Q6_K" if use_more_bits(int(name.split(".")[2]), layers) else "Q4_K"
    else:
        kind = "Q4_K"
    if cols % 256:
        kind = {"Q6_K": "Q8_0", "Q4_K": "Q5_0"}[kind]
    return kind


def write_gguf(path, s):
    import gguf_tiny as gt
    import gguf_writer as gw
    rng = np.random.default_rng(7)
    pool = Pool(rng)
    c = config(s)
    kvs = gt.config_kvs(c)
    if s["arch"] == "gemma2":
        kvs += [gt.f32v("gemma2.attn_logit_softcapping", c["attn_logit_softcapping"]),
                gt.f32v("gemma2.final_logit_softcapping", c["final_logit_softcapping"]),
                gt.u32("gemma2.attention.sliding_window", c["sliding_window"])]
        names = dict(gt.BLOCK_NAMES, **gt.GEMMA_NORMS)
    else:
        names = gt.BLOCK_NAMES
    kvs += gt.spm_tokenizer_kvs(gt.tiny_spm_pieces(s["V"]))
    plan = []  # (gguf name, dims in ggml order, kind, bytes)
    for name, rows, cols in tensors(s):
        stem, suffix = name.rsplit(".", 1)
        if stem == "model.embed_tokens":
            g = "token_embd." + suffix
        elif stem == "model.norm":
            g = "output_norm." + suffix
        else:
            _, _, layer, rest = stem.split(".", 3)
            g = f"blk.{layer}.{names[rest]}.{suffix}"
        if cols == 0:
            plan.append((g, [rows], "F32", rows * 4, name))
            continue
        kind = q4km_type(name, cols, s["L"])
        per, size = gw.BLOCK[kind]
        plan.append((g, [cols, rows], kind, rows * cols // per * size, name))
    alignment = 32
    head = b"GGUF" + struct.pack("<IQQ", 3, len(plan), len(kvs)) + b"".join(kvs)
    infos, offset = b"", 0
    for g, dims, kind, nbytes, _ in plan:
        offset += -offset % alignment
        infos += gw.gstr(g) + struct.pack("<I", len(dims)) + struct.pack(f"<{len(dims)}Q", *dims)
        infos += struct.pack("<IQ", gw.TYPES[kind], offset)
        offset += nbytes
    # Each type's blocks scaled so that a matrix's values have about 0.8 / √cols of spread.
    spread = {k: gw.decode(k, gw.random_blocks(np.random.default_rng(0), k, 1 << 16)).std()
              for k in ("Q4_K", "Q6_K", "Q8_0", "Q5_0")}
    with open(path, "wb") as f:
        out = head + infos
        f.write(out + b"\0" * (-len(out) % alignment))
        written = 0
        for g, dims, kind, nbytes, name in plan:
            f.write(b"\0" * (-written % alignment))
            written += -written % alignment
            if kind == "F32":
                raw = vector_values(name, dims[0], s["arch"], pool)
                # The converter stores Gemma's norms as 1 + w.
                raw = (raw + np.float32(1 if s["arch"] == "gemma2" else 0)).astype(np.float32)
                raw = raw.tobytes()
            else:
                cols, rows = dims
                raw = gw.random_blocks(rng, kind, rows * cols, 0.8 / np.sqrt(cols) / spread[kind])
            assert len(raw) == nbytes, (g, len(raw), nbytes)
            f.write(raw)
            written += nbytes
    # With <bos>, 63 words of one piece each (tiny_spm_pieces has ▁the ▁cat ▁sat ▁on ▁a).
    return " ".join(WORDS[i % len(WORDS)] for i in range(TOKENS - 1))


def main(argv):
    if len(argv) >= 2 and argv[0] == "write":
        folder = argv[1]
        shape = argv[argv.index("--shape") + 1] if "--shape" in argv else "tiny"
        fmt = argv[argv.index("--format") + 1] if "--format" in argv else "bf16"
        s = SHAPES[shape]
        os.makedirs(folder, exist_ok=True)
        if fmt == "bf16":
            text = write_folder(os.path.join(folder, "model"), s)
            target = os.path.join(folder, "model", "model.safetensors")
        else:
            target = os.path.join(folder, "model.gguf")
            text = write_gguf(target, s)
        open(os.path.join(folder, "text.txt"), "w").write(text)
        json.dump({"shape": shape, "format": fmt}, open(os.path.join(folder, "bench.json"), "w"))
        print(f"wrote {target} ({shape}, {fmt}): {os.path.getsize(target)} bytes")
        return 0
    if len(argv) == 2 and argv[0] == "text":
        print(open(os.path.join(argv[1], "text.txt")).read())
        return 0
    if len(argv) == 3 and argv[0] == "check":
        info = json.load(open(os.path.join(argv[1], "bench.json")))
        s = SHAPES[info["shape"]]
        z = np.load(argv[2])
        n = len(z["token_ids"])
        ok = (n == TOKENS and z["weights"].shape == (s["L"], s["H"], n, n)
              and z["logits"].shape == (s["V"],) and np.isfinite(z["weights"]).all()
              and np.isfinite(z["logits"]).all()
              and np.allclose(z["weights"].sum(-1), 1, atol=1e-4))
        print(f"{info['shape']} {info['format']}: {n} tokens, weights {z['weights'].shape}, "
              f"logits {z['logits'].shape}: {'as expected' if ok else 'WRONG'}")
        return 0 if ok else 1
    print(__doc__ or "usage: see the file's head", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
