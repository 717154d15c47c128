# Which session matrix is W_Q, W_K, W_V and W_O, and which way round (docs/session-format.md, "The
# same computation in PyTorch"): torch.nn.MultiheadAttention's forward written out in numpy
# float64, fed as the documentation says (in_proj_weight = [W_Qᵀ; W_Kᵀ; W_Vᵀ], out_proj.weight =
# W_Oᵀ, F.linear(x, w) = x·wᵀ), checked against `attnscope compute SESSION -o OUT.npz`.
# The numpy twin of tests/core/data/pytorch_mapping_check.py, which needs torch.
# Usage: weights_mapping_reference.py SESSION.attnscope OUT.npz
import json
import sys

import numpy as np

EPS = np.finfo(np.float32).eps


def f32(rows):
    """A session's matrix as AttnScope holds it (float32), widened to float64 for the reference."""
    return np.array(rows, np.float32).astype(np.float64)


def softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def mha(scene, W):
    """Weights [H,n,n], Q, K, V [n,d] and the layer output [n,d], PyTorch's way."""
    X = f32(scene["embeddings"])
    n, d = X.shape
    H = scene["heads"]
    assert scene["kv_heads"] in (0, H) and scene["positional"] == "none", "PyTorch's own case only"
    dk = d // H
    in_proj_weight = np.concatenate([W["W_Q"].T, W["W_K"].T, W["W_V"].T])  # [3d, d]
    q, k, v = np.split(X @ in_proj_weight.T, 3, axis=1)  # F.linear, bias 0
    heads = lambda t: t.reshape(n, H, dk).transpose(1, 0, 2)
    s = np.einsum("hid,hjd->hij", heads(q), heads(k))
    if scene["score"] == "general":  # q·W·kᵀ with each head's d_k × d_k W (no PyTorch twin)
        Wg = [f32(hs["W"]) for hs in scene["weights"]["head_scores"]]
        s = np.stack([heads(q)[h] @ Wg[h] @ heads(k)[h].T for h in range(H)])
    else:
        assert scene["score"] == "dot"
    if scene["scale"]:
        s = s / np.sqrt(dk)
    s = s / scene["temperature"]
    if scene["mask"]["kind"] == "causal":
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    else:
        assert scene["mask"]["kind"] == "none"
    w = softmax(s)
    concat = np.einsum("hij,hjd->ihd", w, heads(v)).reshape(n, d)
    out_proj_weight = W["W_O"].T
    return w, q, k, v, concat @ out_proj_weight.T


def bound(A, B):
    """Float32-honest bound of the product A·B: a few ε per term times Σ|terms|."""
    return 8 * EPS * (np.abs(A) @ np.abs(B))


def main(session, out):
    scene = json.load(open(session))["scene"]
    W = {k: f32(scene["weights"][k]) for k in ("W_Q", "W_K", "W_V", "W_O")}
    X = f32(scene["embeddings"])
    z = np.load(out)
    got = {k: z[k].astype(np.float64) for k in ("weights", "Q", "K", "V", "layer_output", "X")}
    w, q, k, v, y = mha(scene, W)

    assert np.array_equal(got["X"], X), "X is not the session's embeddings"
    for name, ref, Wm in (("Q", q, W["W_Q"]), ("K", k, W["W_K"]), ("V", v, W["W_V"])):
        assert got[name].shape == ref.shape, (name, got[name].shape, ref.shape)
        err = np.abs(got[name] - ref)
        assert (err <= bound(X, Wm)).all(), f"{name}: max |Δ| {err.max():.3g}"
    # A weight's error: its score's (a few ε · Σ|q_d k_d| / √d_k / τ, times the largest score
    # difference of the row it enters the softmax with) — bounded here by 1e-6 for scores of a few
    # units; the layer output then carries |Δweights| · |V| · |W_O| on top of the products' ε.
    assert got["weights"].shape == w.shape, (got["weights"].shape, w.shape)
    werr = np.abs(got["weights"] - w).max()
    assert werr < 1e-6, f"weights: max |Δ| {werr:.3g}"
    H, n, _ = w.shape
    dk = X.shape[1] // H
    concat = np.einsum("hij,hjd->ihd", w, v.reshape(n, H, dk).transpose(1, 0, 2)).reshape(n, -1)
    ybound = bound(concat, W["W_O"]) + 1e-6 * (np.abs(v).max() * dk) * np.abs(W["W_O"]).sum(0)
    yerr = np.abs(got["layer_output"] - y)
    assert (yerr <= ybound).all(), f"layer output: max |Δ| {yerr.max():.3g}"

    # The session tells the matrices apart: each wrong reading moves the weights or the output
    # far beyond the bounds above (so a swap or a transpose in the loader or the math fails).
    wrong = {
        "W_Q and W_K swapped": dict(W, W_Q=W["W_K"], W_K=W["W_Q"]),
        "W_V and W_O swapped": dict(W, W_V=W["W_O"], W_O=W["W_V"]),
        "W_Q transposed": dict(W, W_Q=W["W_Q"].T),
        "W_K transposed": dict(W, W_K=W["W_K"].T),
        "W_V transposed": dict(W, W_V=W["W_V"].T),
        "W_O transposed": dict(W, W_O=W["W_O"].T),
    }
    for what, Ww in wrong.items():
        ww, _, _, _, yw = mha(scene, Ww)
        apart = max(np.abs(ww - w).max(), np.abs(yw - y).max())
        assert apart > 1e-2, f"{session}: {what} changes nothing ({apart:.3g}); the check is blind"
        assert max(np.abs(ww - got["weights"]).max(), np.abs(yw - got["layer_output"]).max()) > 1e-2
    print(f"{session}: weights max |Δ| {werr:.2e}, layer output max |Δ| {yerr.max():.2e}; "
          f"{len(wrong)} wrong readings rejected")


if __name__ == "__main__":
    main(*sys.argv[1:3])
