#!/usr/bin/env python3
# AttnScope — the floor under llama_torch_anchor.py: only the products of a 64-token forward
# (q, k, v, o, gate, up, down in every layer and the last position's logits) in float32 eager
# PyTorch, for the shapes in DIR/config.json. Any float32 forward on this BLAS costs at least
# this; its ratio to the anchor's whole forward bounds what a float32 implementation can reach.
# GPL-3.0-or-later.
#   llama_torch_products.py DIR [--repeat N]
import json
import os
import sys
import time

import torch

args = sys.argv[1:]
repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 5
c = json.load(open(os.path.join(args[0], "config.json")))
d, f, L = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"]
hd = c.get("head_dim") or d // c["num_attention_heads"]
q, kv = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd
bias = c["model_type"] == "qwen2"
torch.manual_seed(0)


def weight(n, k, b=False):
    return torch.randn(n, k) * 0.02, (torch.randn(n) * 0.02 if b else None)


layer = [weight(q, d, bias), weight(kv, d, bias), weight(kv, d, bias), weight(d, q),
         weight(f, d), weight(f, d), weight(d, f)]
head = torch.randn(c["vocab_size"], d) * 0.02
x, h = torch.randn(64, d), torch.randn(64, f)


def products():
    for _ in range(L):
        for i, (w, b) in enumerate(layer):
            torch.nn.functional.linear(h if i == 6 else x, w, b)
    torch.nn.functional.linear(x[-1:], head)


products()
times = []
for _ in range(repeat):
    t = time.perf_counter()
    products()
    times.append((time.perf_counter() - t) * 1e3)
print("products_ms", " ".join(f"{t:.1f}" for t in times), "median", f"{sorted(times)[len(times) // 2]:.1f}")
