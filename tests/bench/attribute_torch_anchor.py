#!/usr/bin/env python3
# AttnScope — the PyTorch anchor of the attribution benchmarks (attribute_bench_tool): a Qwen2 /
# Llama forward in float32 eager PyTorch on the weights file llama_bench_tool wrote (BF16
# widened), explaining the last of the same seeded tokens: saliency is one forward and one
# backward to the input embeddings (the weights need no gradient, the head reads only the last
# row: the least work PyTorch can do); integrated gradients run every step as one batch (as
# Captum batches them). Prints the forward + backward time alone, in the process.
# GPL-3.0-or-later.
#   attribute_torch_anchor.py DIR saliency|ig [--tokens N] [--steps M] [--repeat R]
#       [--check ATTRIBUTE_BENCH_TOOL]: in float64, run the tool too and compare its numbers.
import json
import math
import os
import re
import struct
import subprocess
import sys
import time

import numpy as np
import torch

args = sys.argv[1:]
folder, method = args[0], args[1]
opt = lambda name, default: args[args.index(name) + 1] if name in args else default  # noqa: E731
tokens, steps, repeat = int(opt("--tokens", 64)), int(opt("--steps", 32)), int(opt("--repeat", 1))
check = opt("--check", None)
dtype = torch.float64 if check else torch.float32

c = json.load(open(os.path.join(folder, "config.json")))
raw = np.memmap(os.path.join(folder, "model.safetensors"), dtype=np.uint8, mode="r")
size = struct.unpack("<Q", bytes(raw[:8]))[0]
W = {}
for name, e in json.loads(bytes(raw[8:8 + size])).items():
    if name != "__metadata__":
        a, b = e["data_offsets"]
        bits = raw[8 + size + a:8 + size + b].view(np.uint16).astype(np.uint32) << 16
        W[name] = torch.from_numpy(bits.view(np.float32).reshape(e["shape"])).to(dtype)
del raw
L, d, H, KV = c["num_hidden_layers"], c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"]
hd, eps = d // H, c["rms_norm_eps"]
inv = (1.0 / c["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd)).to(dtype)
F = torch.nn.functional


def rms(x, w):
    return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def lin(x, name):
    return F.linear(x, W[name + ".weight"], W.get(name + ".bias"))


def forward(x):
    """The target rows' logits of X [..., n, d] (a batch of inputs: leading dimensions)."""
    n = x.shape[-2]
    ang = torch.arange(n, dtype=dtype)[:, None] * inv[None, :]
    cos, sin = torch.cat([ang, ang], -1).cos(), torch.cat([ang, ang], -1).sin()
    rope = lambda t: t * cos + torch.cat([-t[..., hd // 2:], t[..., :hd // 2]], -1) * sin  # noqa
    split = lambda t, k: t.unflatten(-1, (k, hd)).transpose(-2, -3)  # noqa: E731
    mask = torch.ones(n, n, dtype=torch.bool).tril()
    for l in range(L):
        p = f"model.layers.{l}."
        h = rms(x, W[p + "input_layernorm.weight"])
        q = rope(split(lin(h, p + "self_attn.q_proj"), H))
        k = rope(split(lin(h, p + "self_attn.k_proj"), KV)).repeat_interleave(H // KV, -3)
        v = split(lin(h, p + "self_attn.v_proj"), KV).repeat_interleave(H // KV, -3)
        att = torch.softmax((q @ k.transpose(-1, -2) / math.sqrt(hd)).masked_fill(~mask, -math.inf), -1)
        x = x + lin((att @ v).transpose(-2, -3).flatten(-2), p + "self_attn.o_proj")
        h2 = rms(x, W[p + "post_attention_layernorm.weight"])
        x = x + lin(F.silu(lin(h2, p + "mlp.gate_proj")) * lin(h2, p + "mlp.up_proj"), p + "mlp.down_proj")
    return rms(x[..., -1, :], W["model.norm.weight"]) @ W["model.embed_tokens.weight"].T


def ids(vocab, n):
    """llama_bench_model.hpp's ids: the same 64-bit LCG."""
    out, state = [], 12345
    for _ in range(n):
        state = (state * 6364136223846793005 + 1442695040888963407) % 2 ** 64
        out.append((state >> 33) % vocab)
    return out


x0 = W["model.embed_tokens.weight"][torch.tensor(ids(c["vocab_size"], tokens))]
times, cpu = [], []
for _ in range(repeat):
    t, c0 = time.perf_counter(), time.process_time()
    if method == "saliency":
        x = x0.clone().requires_grad_(True)
        logits = forward(x)
        target = int(logits.detach().argmax())
        logits[target].backward()
        scores = x.grad.norm(dim=-1)
    else:  # integrated gradients: the midpoint rule, every step in one batch
        with torch.no_grad():
            target = int(forward(x0).argmax())
        alphas = (torch.arange(1, steps + 1, dtype=dtype) - 0.5) / steps
        x = (alphas[:, None, None] * x0).requires_grad_(True)
        forward(x)[:, target].sum().backward()
        scores = (x0 * x.grad.mean(0)).sum(-1)
    times.append((time.perf_counter() - t) * 1e3)
    cpu.append((time.process_time() - c0) * 1e3)
for what, v in ((f"{method}_fwd_bwd_ms", times), (f"{method}_fwd_bwd_cpu_ms", cpu)):
    print(what, " ".join(f"{t:.1f}" for t in v), "median", f"{sorted(v)[len(v) // 2]:.1f}")
total = float(scores.sum())
print(f"target {target} sum {total:.6g}")
if check:
    out = subprocess.run([check, method, folder, "--tokens", str(tokens), "--steps", str(steps)],
                         capture_output=True, text=True, check=True).stdout
    got = re.search(r"target (\d+) logit \S+ \w+_sum (\S+)", out)
    scale = float(scores.abs().sum())
    ok = got and int(got.group(1)) == target and abs(float(got.group(2)) - total) <= 1e-4 * scale
    print(("" if ok else "NOT ") + f"agrees with attribute_bench_tool: {out.strip()}")
    sys.exit(0 if ok else 1)
