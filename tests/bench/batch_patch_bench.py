#!/usr/bin/env python3
# AttnScope — the benchmark of `attnscope batch --analysis patch` (issue #41): IOI-style prompt
# pairs of 16 tokens on a random GPT-2-shaped folder, and its PyTorch anchor: the same per-head
# activation patching with forward hooks, each pair's 144 patched runs as one batch (as
# TransformerLens users write it), in float32 eager PyTorch. GPL-3.0-or-later.
#   batch_patch_bench.py write DIR [--shape small|tiny] [--pairs N]
#       writes DIR/model (config.json, model.safetensors, a byte-level vocabulary: one token per
#       byte) and DIR/pairs.jsonl (N pairs, default 200, each prompt 16 characters = 16 tokens)
#   batch_patch_bench.py torch DIR [--check OUT.npz]
#       patches every head of every pair in PyTorch; --check compares its maps with an
#       `attnscope batch` output of the same folder (the two implementations agree)
import json
import math
import os
import struct
import sys
import time

import numpy as np

NAMES = ["Anna", "Rosa", "Mary", "John", "Paul", "Kate", "Lily", "Mark", "Adam", "Emma", "Jack",
         "Luke", "Ruth", "Sara", "Ivan", "Nina"]
SHAPES = {"small": dict(n_layer=12, n_head=12, n_embd=768, vocab_size=50257, n_positions=1024),
          "tiny": dict(n_layer=2, n_head=4, n_embd=32, vocab_size=300, n_positions=64)}


def byte_symbols():
    """GPT-2's bytes_to_unicode: the printable bytes as themselves, the others from U+0100 on."""
    keep = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    extra, out = 0, {}
    for b in range(256):
        if b in keep:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + extra)
            extra += 1
    return out


def write(folder, shape, pairs):
    c = SHAPES[shape]
    L, D, V, P = c["n_layer"], c["n_embd"], c["vocab_size"], c["n_positions"]
    model = os.path.join(folder, "model")
    os.makedirs(model, exist_ok=True)
    json.dump({"model_type": "gpt2", "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new",
               **c}, open(os.path.join(model, "config.json"), "w"))
    rng = np.random.default_rng(1)
    shapes = [("wte.weight", (V, D), 0.1), ("wpe.weight", (P, D), 0.05), ("ln_f.weight", (D,), 1),
              ("ln_f.bias", (D,), 0)]
    for l in range(L):
        p = f"h.{l}."
        shapes += [(p + "ln_1.weight", (D,), 1), (p + "ln_1.bias", (D,), 0),
                   (p + "attn.c_attn.weight", (D, 3 * D), 0.6 / math.sqrt(D)),
                   (p + "attn.c_attn.bias", (3 * D,), 0),
                   (p + "attn.c_proj.weight", (D, D), 0.3 / math.sqrt(D)),
                   (p + "attn.c_proj.bias", (D,), 0), (p + "ln_2.weight", (D,), 1),
                   (p + "ln_2.bias", (D,), 0),
                   (p + "mlp.c_fc.weight", (D, 4 * D), 0.3 / math.sqrt(D)),
                   (p + "mlp.c_fc.bias", (4 * D,), 0),
                   (p + "mlp.c_proj.weight", (4 * D, D), 0.3 / math.sqrt(4 * D)),
                   (p + "mlp.c_proj.bias", (D,), 0)]
    header, offset = {}, 0
    for name, s, _ in shapes:
        n = int(np.prod(s)) * 4
        header[name] = {"dtype": "F32", "shape": list(s), "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(os.path.join(model, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for name, s, scale in shapes:
            if scale in (0, 1):
                a = np.full(s, float(scale), np.float32)
            else:
                a = rng.normal(0, scale, s).astype(np.float32)
            f.write(a.tobytes())
    sym = byte_symbols()
    vocab = {sym[b]: b for b in range(256)} | {"qz": 256}
    json.dump(vocab, open(os.path.join(model, "vocab.json"), "w"))
    open(os.path.join(model, "merges.txt"), "w").write("#version: 0.2\nq z\n")
    with open(os.path.join(folder, "pairs.jsonl"), "w") as f:
        written = 0
        while written < pairs:
            a, b, c2 = rng.choice(len(NAMES), 3, replace=False)
            A, B, C = NAMES[a], NAMES[b], NAMES[c2]
            # The answer and the wrong answer are initials: names sharing one (Mary, Mark)
            # would make a pair with nothing to patch.
            if len({A[0], B[0], C[0]}) < 3:
                continue
            written += 1
            clean = f"{A} met {B}. {B[0]}"  # 16 characters: 16 one-byte tokens
            corrupt = f"{A} met {B}. {C[0]}"
            f.write(json.dumps({"clean": clean, "corrupt": corrupt, "answer": ord(A[0]),
                                "wrong": ord(B[0])}) + "\n")


def torch_patch(folder, check=None):
    import torch
    torch.set_grad_enabled(False)
    t0 = time.perf_counter()
    model = os.path.join(folder, "model")
    c = json.load(open(os.path.join(model, "config.json")))
    L, H, D = c["n_layer"], c["n_head"], c["n_embd"]
    dh = D // H
    raw = open(os.path.join(model, "model.safetensors"), "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    W = {}
    for name, e in header.items():
        a, b = e["data_offsets"]
        W[name] = torch.from_numpy(np.frombuffer(raw, np.float32, (b - a) // 4, 8 + n + a)
                                   .reshape(e["shape"]).copy())
    del raw

    class Proj(torch.nn.Module):  # GPT-2's Conv1D: x @ W + b; the hook point of a head's z
        def __init__(self, w, b):
            super().__init__()
            self.w, self.b = w, b

        def forward(self, x):
            return x @ self.w + self.b

    projs = [Proj(W[f"h.{l}.attn.c_proj.weight"], W[f"h.{l}.attn.c_proj.bias"]) for l in range(L)]

    def ln(x, p):
        return torch.nn.functional.layer_norm(x, (D,), W[p + ".weight"], W[p + ".bias"], 1e-5)

    def forward(ids):
        B, T = ids.shape
        x = W["wte.weight"][ids] + W["wpe.weight"][:T]
        mask = torch.ones(T, T, dtype=torch.bool).tril()
        for l in range(L):
            p = f"h.{l}."
            qkv = ln(x, p + "ln_1") @ W[p + "attn.c_attn.weight"] + W[p + "attn.c_attn.bias"]
            q, k, v = (t.view(B, T, H, dh).transpose(1, 2) for t in qkv.split(D, -1))
            s = (q @ k.transpose(-1, -2)) / math.sqrt(dh)
            a = s.masked_fill(~mask, float("-inf")).softmax(-1)
            z = (a @ v).transpose(1, 2).reshape(B, T, D)
            x = x + projs[l](z)
            h = ln(x, p + "ln_2") @ W[p + "mlp.c_fc.weight"] + W[p + "mlp.c_fc.bias"]
            h = torch.nn.functional.gelu(h, approximate="tanh")
            x = x + h @ W[p + "mlp.c_proj.weight"] + W[p + "mlp.c_proj.bias"]
        return ln(x[:, -1], "ln_f")

    def diff(y, answer, wrong):
        return (y @ (W["wte.weight"][answer] - W["wte.weight"][wrong])).double()

    pairs = [json.loads(l) for l in open(os.path.join(folder, "pairs.jsonl"))]
    maps = []
    rows = torch.arange(L * H)
    for pair in pairs:
        clean = torch.tensor([list(pair["clean"].encode())])
        corrupt = torch.tensor([list(pair["corrupt"].encode())])
        zs = {}
        hooks = [projs[l].register_forward_pre_hook(
            lambda m, args, l=l: zs.__setitem__(l, args[0].clone())) for l in range(L)]
        clean_diff = diff(forward(clean), pair["answer"], pair["wrong"])[0]
        for h in hooks:
            h.remove()
        corrupt_diff = diff(forward(corrupt), pair["answer"], pair["wrong"])[0]

        def patch(m, args, l):  # batch row l·H + h: head h of layer l is the clean run's
            z = args[0].clone()
            for h in range(H):
                z[l * H + h, :, h * dh:(h + 1) * dh] = zs[l][0, :, h * dh:(h + 1) * dh]
            return (z,)

        hooks = [projs[l].register_forward_pre_hook(lambda m, a, l=l: patch(m, a, l))
                 for l in range(L)]
        patched = diff(forward(corrupt.expand(L * H, -1)), pair["answer"], pair["wrong"])
        for h in hooks:
            h.remove()
        maps.append(((patched - corrupt_diff) / (clean_diff - corrupt_diff))[rows].view(L, H))
    seconds = time.perf_counter() - t0
    print(f"torch: {len(pairs)} pairs × {L * H} heads patched in {seconds:.2f} s")
    if check:
        got = np.load(check)["per_example/head_patch"]
        want = torch.stack(maps).numpy()
        err = np.abs(got - want).max()
        print(f"attnscope's head_patch within {err:.2e} of torch's")
        if not (got.shape == want.shape and err <= 1e-3):
            sys.exit(f"FAIL: the maps differ ({got.shape} vs {want.shape}, {err:.2e})")


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "write":
        write(args[1], args[args.index("--shape") + 1] if "--shape" in args else "small",
              int(args[args.index("--pairs") + 1]) if "--pairs" in args else 200)
    elif len(args) >= 2 and args[0] == "torch":
        torch_patch(args[1], args[args.index("--check") + 1] if "--check" in args else None)
    else:
        sys.exit(__doc__ or "usage: batch_patch_bench.py write DIR | torch DIR")
