# AttnScope — what the CLI tests of the gradient methods share: autograd's saliency, input ×
# gradient, integrated gradients and attention × gradient through a torch forward written in
# the test, `attnscope attribute` run on a folder, and the comparison of the two.
# GPL-3.0-or-later.
import math
import os
import subprocess
import tempfile

import numpy as np
import torch
from cli_checks import BIN, check

torch.set_default_dtype(torch.float64)
_OUT = tempfile.TemporaryDirectory()
GRADIENT = "saliency,input_x_gradient,integrated_gradients,attention_x_gradient"


def T(a):
    """A float64 torch tensor of A."""
    return torch.tensor(np.asarray(a, np.float64))


def worst(got, want):
    """The largest difference relative to the largest magnitude of WANT."""
    want = np.asarray(want, np.float64)
    return float(np.abs(np.asarray(got, np.float64) - want).max() / max(np.abs(want).max(), 1e-12))


def attend(q, k, v, l, causal, iv, scale=None, cap=None, window=None):
    """Heads [H, n, hd]: the weights (knockouts masked, as a renormalised row) and z (ablation);
    SCALE replaces 1/√d, CAP soft-caps the scaled scores, WINDOW narrows the causal mask."""
    n, H = q.shape[1], q.shape[0]
    s = q @ k.transpose(1, 2) * (scale if scale is not None else 1 / math.sqrt(q.shape[-1]))
    if cap:
        s = torch.tanh(s / cap) * cap
    s = s / iv.get("temperature", 1.0)
    hide = torch.zeros(H, n, n, dtype=torch.bool)
    if causal:
        hide |= ~torch.tril(torch.ones(n, n, dtype=torch.bool))
    if window:
        hide |= ~torch.triu(torch.ones(n, n, dtype=torch.bool), -(window - 1))
    for (kl, kh, kq, kk) in iv.get("knockouts", ()):
        if kl == l:
            hide[kh, slice(None) if kq < 0 else kq, kk] = True
    att = torch.softmax(s.masked_fill(hide, -math.inf), -1)
    if att.requires_grad:
        att.retain_grad()
    z = att @ v
    zs = []
    for h in range(H):
        if (l, h) in iv.get("ablate", ()):
            zs.append(z[h] * 0 if iv.get("mode", "zero") == "zero" else z[h].mean(0).expand(n, -1))
        else:
            zs.append(z[h])
    return att, torch.stack(zs).transpose(0, 1).reshape(n, -1)


def torch_methods(fwd, x0, at, target, steps):
    """Saliency, input × gradient, IG (midpoint, baseline 0) with its delta, attention × gradient."""
    x = x0.clone().requires_grad_(True)
    logits, atts = fwd(x, at)
    logits[target].backward()
    g = x.grad
    axg = torch.stack([a * a.grad for a in atts]).detach().numpy()
    total = torch.zeros_like(x0)
    for k in range(1, steps + 1):
        xa = ((k - 0.5) / steps * x0).requires_grad_(True)
        fwd(xa, at)[0][target].backward()
        total += xa.grad
    ig = (x0 * total / steps).sum(1)
    with torch.no_grad():
        delta = float(ig.sum() - (logits[target] - fwd(torch.zeros_like(x0), at)[0][target]))
    return {"saliency": g.norm(dim=1).numpy(), "input_x_gradient": (x0 * g).sum(1).numpy(),
            "integrated_gradients": ig.detach().numpy(), "ig_delta": delta, "attention_x_gradient": axg,
            "logit": float(logits[target])}


def attribute(model, text, *args):
    out = os.path.join(_OUT.name, "grad.npz")
    r = subprocess.run([BIN, "attribute", "--model", model, "--text", text, *args, "-o", out],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"attribute {os.path.basename(model)} {' '.join(args)} exits 0 "
                             f"({r.stderr.strip()[:300]})")
    return np.load(out) if r.returncode == 0 else None



def compare(name, z, fwd, x0, steps, L, H):
    """Every gradient array of Z against autograd through FWD from X0 (numpy's float64 x0)."""
    n = len(z["token_ids"])
    at, target = int(z["position"][0]), int(z["target"][0])
    t = torch_methods(fwd, T(x0), at, target, steps)
    check(abs(float(z["logit"][0]) - t["logit"]) <= 1e-4 * max(1, abs(t["logit"])),
          f"{name}: logit {float(z['logit'][0]):.6f} vs torch {t['logit']:.6f}")
    for m in ("saliency", "input_x_gradient", "integrated_gradients"):
        e = worst(z[m], t[m])
        check(z[m].shape == (n,) and e <= 1e-4, f"{name}: {m} within {e:.1e} of autograd")
    e = worst(z["attention_x_gradient"], t["attention_x_gradient"])
    check(z["attention_x_gradient"].shape == (L, H, n, n) and e <= 1e-4,
          f"{name}: attention_x_gradient {z['attention_x_gradient'].shape} within {e:.1e} of autograd")
    d = float(z["ig_delta"][0])
    check(abs(d - t["ig_delta"]) <= 1e-4 * max(1.0, abs(t["logit"])),
          f"{name}: ig_delta {d:.3e} vs torch {t['ig_delta']:.3e} ({steps} steps)")
    return t
