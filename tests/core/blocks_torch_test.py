#!/usr/bin/env python3
# AttnScope — every block's forward and vector–Jacobian product (float32, the families'
# instantiation) against PyTorch autograd in float64 on the same seeded numpy inputs: outputs
# and gradients to 5e-6 of their largest magnitude (float32's ε is 1.2e-7: a few dozen roundings
# through a block's operations; measured ≤ 3.1e-7).
# GPL-3.0-or-later.
#   blocks_torch_test.py BLOCKS_TOOL
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

TOOL = sys.argv[1]
TOL = 5e-6
failures = []


def tool(case):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(case, f)
        path = f.name
    try:
        res = subprocess.run([TOOL, path], capture_output=True, text=True, timeout=60)
    finally:
        os.remove(path)
    if res.returncode != 0:
        raise RuntimeError(f"{case['block']}: tool failed: {res.stderr}")
    return json.loads(res.stdout)


def f32(a):
    """The float32 value the tool reads, as float64 for torch (both sides see the same input)."""
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def t(a):
    return torch.tensor(f32(a), dtype=torch.float64, requires_grad=True)


def compare(name, got, ref):
    got = np.asarray(got, dtype=np.float64)
    ref = ref.detach().numpy() if isinstance(ref, torch.Tensor) else np.asarray(ref)
    if got.shape != ref.shape:
        failures.append(f"{name}: shape {got.shape}, torch {ref.shape}")
        return
    scale = max(np.abs(ref).max(), 1e-30)
    err = np.abs(got - ref).max() / scale
    print(f"{name}: max error {err:.2e} of {scale:.3g}")
    if not err <= TOL:
        failures.append(f"{name}: error {err:.2e} > {TOL}")


def grads(y, dy, *inputs):
    return torch.autograd.grad(y, inputs, grad_outputs=torch.tensor(f32(dy)), allow_unused=True)


rng = np.random.default_rng(7)
N = lambda *shape: rng.standard_normal(shape)  # noqa: E731

# LayerNorm.
x, w, b, dy = N(5, 12) * 3 + 1, N(12), N(12), N(5, 12)
got = tool({"block": "layer_norm", "x": x.tolist(), "w": w.tolist(), "b": b.tolist(),
            "eps": 1e-5, "dy": dy.tolist()})
tx, tw, tb = t(x), t(w), t(b)
y = torch.nn.functional.layer_norm(tx, (12,), tw, tb, 1e-5)
gx, gw, gb = grads(y, dy, tx, tw, tb)
for k, ref in [("y", y), ("dx", gx), ("dw", gw), ("db", gb)]:
    compare(f"layer_norm {k}", got[k], ref)

# RMSNorm, both gain forms (transformers' LlamaRMSNorm, GemmaRMSNorm).
for one_plus in (False, True):
    x, w, dy = N(4, 10) * 2, N(10) * 0.5, N(4, 10)
    got = tool({"block": "rms_norm", "x": x.tolist(), "w": w.tolist(), "eps": 1e-6,
                "one_plus_w": one_plus, "dy": dy.tolist()})
    tx, tw = t(x), t(w)
    y = tx * torch.rsqrt(tx.pow(2).mean(-1, keepdim=True) + 1e-6) * ((1 + tw) if one_plus else tw)
    gx, gw = grads(y, dy, tx, tw)
    for k, ref in [("y", y), ("dx", gx), ("dw", gw)]:
        compare(f"rms_norm{' (1+w)' if one_plus else ''} {k}", got[k], ref)

# Activations and the gated forms.
acts = {"gelu": lambda v: torch.nn.functional.gelu(v),
        "gelu_pytorch_tanh": lambda v: torch.nn.functional.gelu(v, approximate="tanh"),
        "silu": torch.nn.functional.silu, "relu": torch.relu}
for name, fn in acts.items():
    x, dy = N(4, 9) * 2.5, N(4, 9)
    x[np.abs(x) < 1e-3] = 0.5  # ReLU's kink stays away from the inputs
    got = tool({"block": "activation", "act": name, "x": x.tolist(), "dy": dy.tolist()})
    tx = t(x)
    y = fn(tx)
    (gx,) = grads(y, dy, tx)
    compare(f"{name} y", got["y"], y)
    compare(f"{name} dx", got["dx"], gx)
for name in ("silu", "gelu_pytorch_tanh"):
    gate, up, dy = N(3, 8) * 2, N(3, 8), N(3, 8)
    got = tool({"block": "gated", "act": name, "gate": gate.tolist(), "up": up.tolist(),
                "dy": dy.tolist()})
    tg, tu = t(gate), t(up)
    y = acts[name](tg) * tu
    gg, gu = grads(y, dy, tg, tu)
    for k, ref in [("y", y), ("dgate", gg), ("dup", gu)]:
        compare(f"gated {name} {k}", got[k], ref)

# A projection with bias: nn.functional.linear, weight [out, in].
x, w, b, dy = N(6, 7), N(5, 7) * 0.3, N(5), N(6, 5)
got = tool({"block": "linear", "x": x.tolist(), "w": w.tolist(), "b": b.tolist(),
            "dy": dy.tolist()})
tx, tw, tb = t(x), t(w), t(b)
y = torch.nn.functional.linear(tx, tw, tb)
for k, ref in zip(["y", "dx", "dw", "db"], [y, *grads(y, dy, tx, tw, tb)]):
    compare(f"linear {k}", got[k], ref)


# Rotary, full and partial (GPT-NeoX's rotary_pct): transformers' rotate_half on the first
# rotary_dim components, cos/sin of [freqs, freqs].
def rope_ref(x, first, rotary_dim, theta):
    inv = 1.0 / theta ** (np.arange(0, rotary_dim, 2) / rotary_dim)
    ang = np.outer(np.arange(first, first + x.shape[0]), inv)
    emb = np.concatenate([ang, ang], -1)
    cos, sin = torch.tensor(np.cos(emb)), torch.tensor(np.sin(emb))
    rot, rest = x[:, :rotary_dim], x[:, rotary_dim:]
    half = rotary_dim // 2
    rh = torch.cat([-rot[:, half:], rot[:, :half]], -1)
    return torch.cat([rot * cos + rh * sin, rest], -1)


for rotary_dim in (8, 4):
    x, dy = N(6, 8), N(6, 8)
    got = tool({"block": "rotary", "x": x.tolist(), "dy": dy.tolist(), "rotary_dim": rotary_dim,
                "theta": 10000.0, "first": 3})
    tx = t(x)
    y = rope_ref(tx, 3, rotary_dim, 10000.0)
    (gx,) = grads(y, dy, tx)
    compare(f"rotary {rotary_dim}/8 y", got["y"], y)
    compare(f"rotary {rotary_dim}/8 dx", got["dx"], gx)


# Attention: grouped-query heads, causal or windowed, a multiplier, soft-capping, a bias, and the
# tempering (1/τ) after them.
def attention_ref(q, k, v, heads, kv_heads, hd, multiplier, softcap, window, bias, tempering):
    n = q.shape[0]
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    allowed = (j <= i) & ((j > i - window) if window > 0 else True)
    outs = []
    for h in range(heads):
        g = h // (heads // kv_heads)
        qh, kh, vh = q[:, h * hd:(h + 1) * hd], k[:, g * hd:(g + 1) * hd], v[:, g * hd:(g + 1) * hd]
        s = qh @ kh.T * multiplier
        if softcap > 0:
            s = softcap * torch.tanh(s / softcap)
        if bias is not None:
            s = s + torch.tensor(bias[h])
        s = s * tempering
        s = s.masked_fill(torch.tensor(~allowed), -math.inf)
        outs.append(torch.softmax(s, -1) @ vh)
    return torch.cat(outs, -1)


for heads, kv_heads, window, softcap, with_bias, tempering in [
        (4, 2, 0, 0.0, False, 1.0), (2, 2, 3, 0.0, False, 1.0), (4, 1, 0, 2.0, False, 1.0),
        (2, 2, 0, 0.0, True, 1.0), (4, 2, 4, 3.0, True, 1.0), (4, 2, 0, 2.0, True, 1 / 0.7)]:
    n, hd = 7, 4
    q, k, v = N(n, heads * hd), N(n, kv_heads * hd), N(n, kv_heads * hd)
    dy = N(n, heads * hd)
    bias = N(heads, n, n) * 0.5 if with_bias else None
    mult = 1 / math.sqrt(hd) / 0.9
    case = {"block": "attention", "q": q.tolist(), "k": k.tolist(), "v": v.tolist(),
            "dy": dy.tolist(), "heads": heads, "kv_heads": kv_heads, "head_dim": hd,
            "multiplier": mult, "softcap": softcap, "window": window, "tempering": tempering}
    if with_bias:
        case["bias"] = f32(bias).tolist()
    got = tool(case)
    tq, tk, tv = t(q), t(k), t(v)
    mult32 = float(np.float32(mult))
    y = attention_ref(tq, tk, tv, heads, kv_heads, hd, mult32, float(np.float32(softcap)), window,
                      f32(bias) if with_bias else None, float(np.float32(tempering)))
    name = (f"attention {heads}/{kv_heads} window {window} softcap {softcap} bias {with_bias} "
            f"tempering {tempering:.3f}")
    for key, ref in zip(["y", "dq", "dk", "dv"], [y, *grads(y, dy, tq, tk, tv)]):
        compare(f"{name} {key}", got[key], ref)

# Embeddings: token + learned position + token type, scaled; the tables' gradients.
tokens, positions, types = N(9, 6), N(8, 6), N(2, 6)
ids, tt, first = [3, 1, 3, 8, 0], [0, 0, 1, 1, 1], 1
dy = N(len(ids) - first, 6)
got = tool({"block": "embedding", "tokens": tokens.tolist(), "positions": positions.tolist(),
            "types": types.tolist(), "ids": ids, "token_types": tt, "first": first,
            "scale": 2.5, "dy": dy.tolist()})
tt_, tp, ty = t(tokens), t(positions), t(types)
pos = torch.arange(first, len(ids))
y = (tt_[torch.tensor(ids[first:])] + tp[pos] + ty[torch.tensor(tt[first:])]) * 2.5
for key, ref in zip(["y", "dtokens", "dpositions", "dtypes"], [y, *grads(y, dy, tt_, tp, ty)]):
    compare(f"embedding {key}", got[key], ref)

if failures:
    print("\n".join(["FAILED:"] + failures))
    sys.exit(1)
print("every block matches torch autograd")
