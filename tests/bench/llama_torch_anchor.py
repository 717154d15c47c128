#!/usr/bin/env python3
# AttnScope — the PyTorch anchor of the Llama-family benchmarks: the same forward pass (RMSNorm,
# rotate_half RoPE with rope_scaling, grouped-query attention with every head's weights kept,
# SwiGLU, the last position's logits) in float32 eager PyTorch, on the weights file the
# benchmark wrote (read with numpy, BF16 widened), timed the same way as llama_bench_tool.
# GPL-3.0-or-later.
#   llama_torch_anchor.py DIR [--repeat N] [--retype]
#       --retype: the changed last token run again with the prefix's keys and values cached.
import json
import math
import os
import struct
import sys
import time

import numpy as np
import torch

args = sys.argv[1:]
folder = args[0]
repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 1
retype = "--retype" in args

t0 = time.perf_counter()
c = json.load(open(os.path.join(folder, "config.json")))
raw = np.memmap(os.path.join(folder, "model.safetensors"), dtype=np.uint8, mode="r")
n_header = struct.unpack("<Q", bytes(raw[:8]))[0]
header = json.loads(bytes(raw[8:8 + n_header]))
W = {}
for name, e in header.items():
    if name == "__metadata__":
        continue
    a, b = e["data_offsets"]
    chunk = raw[8 + n_header + a:8 + n_header + b]
    if e["dtype"] == "BF16":
        v = (chunk.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    else:
        v = np.array(chunk.view(np.float32))
    W[name] = torch.from_numpy(v.reshape(e["shape"]))
del raw

L, d, H, KV = c["num_hidden_layers"], c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"]
hd = c.get("head_dim") or d // H
eps = c["rms_norm_eps"]
head = W["model.embed_tokens.weight"] if c.get("tie_word_embeddings") else W["lm_head.weight"]

inv = 1.0 / (c["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))
r = c.get("rope_scaling") or {}
if r.get("rope_type", r.get("type")) == "llama3":
    factor, lo, hi, old = (r["factor"], r["low_freq_factor"], r["high_freq_factor"],
                           r["original_max_position_embeddings"])
    wl = 2 * math.pi / inv
    scaled = torch.where(wl > old / lo, inv / factor, inv)
    smooth = (old / wl - lo) / (hi - lo)
    medium = ~(wl < old / hi) & ~(wl > old / lo)
    inv = torch.where(medium, (1 - smooth) * scaled / factor + smooth * scaled, scaled)
inv = inv.float()
print(f"open_ms {(time.perf_counter() - t0) * 1e3:.1f}")


def rms(x, w):
    return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def rope(x, pos):
    ang = pos[:, None].float() * inv[None, :]
    emb = torch.cat([ang, ang], -1)
    half = x.shape[-1] // 2
    return x * emb.cos() + torch.cat([-x[..., half:], x[..., :half]], -1) * emb.sin()


def lin(x, name):
    b = W.get(name + ".bias")
    return torch.nn.functional.linear(x, W[name + ".weight"], b)


def forward(ids, cache=None, first=0):
    """Rows FIRST… of IDS; CACHE: each layer's rotated k and v of the positions before FIRST."""
    n = len(ids)
    x = W["model.embed_tokens.weight"][torch.tensor(ids[first:])]
    pos = torch.arange(first, n)
    new_cache, weights = [], []
    for l in range(L):
        p = f"model.layers.{l}."
        h = rms(x, W[p + "input_layernorm.weight"])
        m = x.shape[0]
        q = lin(h, p + "self_attn.q_proj").view(m, H, hd).transpose(0, 1)
        k = lin(h, p + "self_attn.k_proj").view(m, KV, hd).transpose(0, 1)
        v = lin(h, p + "self_attn.v_proj").view(m, KV, hd).transpose(0, 1)
        q, k = rope(q, pos), rope(k, pos)
        if cache is not None:
            k = torch.cat([cache[l][0][:, :first], k], 1)
            v = torch.cat([cache[l][1][:, :first], v], 1)
        new_cache.append((k, v))
        k, v = k.repeat_interleave(H // KV, 0), v.repeat_interleave(H // KV, 0)
        s = q @ k.transpose(1, 2) / math.sqrt(hd)
        mask = torch.ones(m, n, dtype=torch.bool).tril(first)
        att = torch.softmax(s.masked_fill(~mask, float("-inf")), -1)
        weights.append(att)
        z = (att @ v).transpose(0, 1).reshape(m, H * hd)
        x = x + lin(z, p + "self_attn.o_proj")
        h2 = rms(x, W[p + "post_attention_layernorm.weight"])
        x = x + lin(torch.nn.functional.silu(lin(h2, p + "mlp.gate_proj")) * lin(h2, p + "mlp.up_proj"),
                    p + "mlp.down_proj")
    logits = head @ rms(x[-1], W["model.norm.weight"])
    return logits, new_cache, weights


def ids(vocab, n=64):
    """llama_bench_model.hpp's ids: the same 64-bit LCG."""
    out, state = [], 12345
    for _ in range(n):
        state = (state * 6364136223846793005 + 1442695040888963407) % 2 ** 64
        out.append((state >> 33) % vocab)
    return out


def report(what, times):
    print(what, " ".join(f"{t:.1f}" for t in times), "median", f"{sorted(times)[len(times) // 2]:.1f}")


tokens = ids(c["vocab_size"])
with torch.no_grad():
    times, cpu = [], []
    for _ in range(repeat):
        t, c0 = time.perf_counter(), time.process_time()
        logits, cache, _ = forward(tokens)
        times.append((time.perf_counter() - t) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
    report("forward_ms", times)
    report("forward_cpu_ms", cpu)
    if retype:
        changed = tokens[:-1] + [(tokens[-1] + 1) % c["vocab_size"]]
        times, cpu = [], []
        for _ in range(repeat):
            t, c0 = time.perf_counter(), time.process_time()
            forward(changed, cache, len(tokens) - 1)
            times.append((time.perf_counter() - t) * 1e3)
            cpu.append((time.process_time() - c0) * 1e3)
        report("retype_ms", times)
        report("retype_cpu_ms", cpu)
    print("logit0", float(logits[0]))
