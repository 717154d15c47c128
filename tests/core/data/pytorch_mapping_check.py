#!/usr/bin/python3
"""Checks docs/session-format.md's PyTorch mapping against torch itself (needs python3-torch).

ctest runs the same comparison without torch: tests/cli/weights_mapping_test.sh, with
nn.MultiheadAttention written out in numpy (tests/cli/weights_mapping_reference.py).

    /usr/bin/python3 pytorch_mapping_check.py SCENE.attnscope OUT.npz

SCENE.attnscope: a session with explicit embeddings and weights, a dot score, scaling on,
temperature 1, positional "none", kv_heads = heads; OUT.npz: `attnscope compute` (or
attn::io::ResultStream) of that scene. Prints the largest differences of the weights and of the
layer output against torch.nn.MultiheadAttention (about 6e-8 when the mapping holds).
"""
import json
import sys

import numpy as np
import torch

s = json.load(open(sys.argv[1]))["scene"]
W = {k: torch.tensor(np.array(s["weights"][k], dtype=np.float32))
     for k in ("W_Q", "W_K", "W_V", "W_O")}
mha = torch.nn.MultiheadAttention(s["d_model"], s["heads"], batch_first=True)
with torch.no_grad():
    mha.in_proj_weight.copy_(torch.cat([W["W_Q"].T, W["W_K"].T, W["W_V"].T]))
    mha.in_proj_bias.zero_()
    mha.out_proj.weight.copy_(W["W_O"].T)
    mha.out_proj.bias.zero_()
X = torch.tensor(np.array(s["embeddings"], dtype=np.float32))[None]
n = X.shape[1]
causal = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)  # True = not allowed
mask = causal if s["mask"]["kind"] == "causal" else None
out, weights = mha(X, X, X, attn_mask=mask, need_weights=True, average_attn_weights=False)
z = np.load(sys.argv[2])
print("weights: max |Δ| =", np.abs(weights[0].detach().numpy() - z["weights"]).max())
print("output:  max |Δ| =", np.abs(out[0].detach().numpy() - z["layer_output"]).max())
