# AttnScope — interventions on GPT-2 in numpy (float64): the independent reference of
# tests/cli/interventions_test.sh. GPL-3.0-or-later.
# Written from the methods' definitions (TransformerLens's hook points, nostalgebraist's logit
# lens, Elhage et al.'s direct logit attribution, Meng et al. / Wang et al.'s activation
# patching), not from the C++ code: each patched quantity is a whole forward pass again.
import numpy as np

from gpt2_tiny import D, H, layer_norm


def forward(w, ids, ablate=(), mode="zero", knockouts=(), patch_z=None, patch_resid=None):
    """GPT-2 with interventions. ABLATE: (l, h) whose z is zero or its mean over positions;
    KNOCKOUTS: (l, h, q, k), q = -1 for every query, the weight removed and the row renormalised;
    PATCH_Z: {(l, h): z [n, dk]} put in place of z; PATCH_RESID: (l, positions, rows) the stream
    entering layer l (l = L: leaving the last) replaced at those positions. Returns a dict of
    resid [L+1][n, D], z {(l, h): [n, dk]}, mlp [L][n, D], attn [L][n, D], logits [n, vocab]."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    layers = len({k.split(".")[1] for k in w if k.startswith("h.")})
    n, dk = len(ids), D // H
    x = w["wte.weight"][ids] + w["wpe.weight"][:n]
    out = {"resid": [], "z": {}, "mlp": [], "attn": []}

    def patch_stream(l, x):
        if patch_resid is not None and patch_resid[0] == l:
            x = x.copy()
            for p in patch_resid[1]:
                x[p] = patch_resid[2][p]
        return x

    for l in range(layers):
        x = patch_stream(l, x)
        out["resid"].append(x)
        p = f"h.{l}."
        a = layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"])
        qkv = a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
        merged = np.zeros((n, D))
        for h in range(H):
            q = qkv[:, h * dk:(h + 1) * dk]
            k = qkv[:, D + h * dk:D + (h + 1) * dk]
            v = qkv[:, 2 * D + h * dk:2 * D + (h + 1) * dk]
            s = np.where(np.tril(np.ones((n, n), bool)), q @ k.T / np.sqrt(dk), -np.inf)
            for (kl, kh, kq, kk) in knockouts:
                if (kl, kh) == (l, h):
                    rows = range(n) if kq < 0 else [kq]
                    for i in rows:
                        s[i, kk] = -np.inf
            e = np.exp(s - s.max(-1, keepdims=True))
            att = e / e.sum(-1, keepdims=True)
            z = att @ v
            if (l, h) in ablate:
                z = np.zeros_like(z) if mode == "zero" else np.tile(z.mean(0), (n, 1))
            if patch_z is not None and (l, h) in patch_z:
                z = patch_z[(l, h)]
            out["z"][(l, h)] = z
            merged[:, h * dk:(h + 1) * dk] = z
        attn = merged @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        out["attn"].append(attn)
        x = x + attn
        m = layer_norm(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"])
        hdn = m @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]
        hdn = 0.5 * hdn * (1 + np.tanh(np.sqrt(2 / np.pi) * (hdn + 0.044715 * hdn ** 3)))
        mlp = hdn @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
        out["mlp"].append(mlp)
        x = x + mlp
    x = patch_stream(layers, x)
    out["resid"].append(x)
    out["logits"] = layer_norm(x, w["ln_f.weight"], w["ln_f.bias"]) @ w["wte.weight"].T
    return out


def lens(w, run):
    """The logit lens at the last position: [L+1, vocab]."""
    w64 = {k: v.astype(np.float64) for k, v in w.items()}
    rows = np.array([r[-1] for r in run["resid"]])
    return layer_norm(rows, w64["ln_f.weight"], w64["ln_f.bias"]) @ w64["wte.weight"].T


def attribution(w, run, token):
    """Direct logit attribution of TOKEN at the last position with the final LayerNorm's scale
    frozen: heads [L, H], mlp [L], embed, bias (attention biases + the final norm's bias)."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    y = run["resid"][-1][-1]
    scale = 1 / np.sqrt(((y - y.mean()) ** 2).mean() + 1e-5)
    direction = w["ln_f.weight"] * w["wte.weight"][token] * scale

    def part(v):  # LayerNorm centres each part: its mean is subtracted
        return float((v - v.mean()) @ direction)

    layers, dk = len(run["mlp"]), D // H
    heads = np.zeros((layers, H))
    bias = float(w["ln_f.bias"] @ w["wte.weight"][token])
    for l in range(layers):
        wo = w[f"h.{l}.attn.c_proj.weight"]
        for h in range(H):
            heads[l, h] = part(run["z"][(l, h)][-1] @ wo[h * dk:(h + 1) * dk])
        bias += part(w[f"h.{l}.attn.c_proj.bias"])
    mlp = np.array([part(m[-1]) for m in run["mlp"]])
    return heads, mlp, part(run["resid"][0][-1]), bias


def patching(w, clean_ids, corrupt_ids, answer, wrong):
    """head_patch [L, H] and resid_patch [L+1, n]: the fraction of answer − wrong restored."""
    clean, corrupt = forward(w, clean_ids), forward(w, corrupt_ids)

    def diff(run):
        return run["logits"][-1, answer] - run["logits"][-1, wrong]

    c, x = diff(clean), diff(corrupt)
    layers, n = len(clean["mlp"]), len(clean_ids)
    heads = np.zeros((layers, H))
    for l in range(layers):
        for h in range(H):
            run = forward(w, corrupt_ids, patch_z={(l, h): clean["z"][(l, h)]})
            heads[l, h] = (diff(run) - x) / (c - x)
    resid = np.zeros((layers + 1, n))
    for l in range(layers + 1):
        for p in range(n):
            run = forward(w, corrupt_ids, patch_resid=(l, [p], clean["resid"][l]))
            resid[l, p] = (diff(run) - x) / (c - x)
    return heads, resid
