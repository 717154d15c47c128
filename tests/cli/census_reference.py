# Independent numpy computations of the head census and attention rollout (docs/census.md,
# docs/rollout.md), checked against `attnscope census` and `attnscope compute --rollout`.
# Usage: census_reference.py census WEIGHTS_SOURCE OUT.csv|OUT.json
#        census_reference.py rollout WEIGHTS_SOURCE OUT.npz|OUT.json
# WEIGHTS_SOURCE: a real fixture (.npz with 'scores'+'attention', or a BertViz .json), or the
# .npz of `attnscope compute` (weights and q_tokens).
import csv, json, sys
import numpy as np

PATTERNS = ["previous_token", "self", "first_token", "local", "broad", "induction"]


def weights_of(path):
    """[L,H,N,N] post-softmax weights, tokens and whether the model is causal."""
    if path.endswith(".npz"):
        d = np.load(path)
        if "weights" in d:  # `attnscope compute` output: post-softmax weights and the tokens
            w = d["weights"].astype(np.float64)
            w = w[None] if w.ndim == 3 else w
            n = w.shape[-1]
            causal = bool(np.all(w[..., ~np.tril(np.ones((n, n), bool))] == 0))
            return w, [str(t) for t in d["q_tokens"]], causal
        s = d["scores"].astype(np.float64) / np.sqrt(64.0)
        n = s.shape[-1]
        causal = np.tril(np.ones((n, n), bool))
        s = np.where(causal, s, -np.inf)
        e = np.exp(s - s.max(-1, keepdims=True))
        w = e / e.sum(-1, keepdims=True)
        # The softmax of the scores is the model's own attention.
        assert np.abs(w - d["attention"]).max() < 1e-6
        return w, [str(t) for t in d["tokens"]], True
    a = json.load(open(path))["attention"]
    a = a["all"] if isinstance(a, dict) and "all" in a else a
    if isinstance(a, list):  # the current BertViz form: a list of components
        a = a[0]
    w = np.array(a["attn"], dtype=np.float64)
    n = w.shape[-1]
    causal = bool(np.all(w[..., ~np.tril(np.ones((n, n), bool))] == 0))
    return w, a["left_text"], causal


def census(w, tokens, causal):
    L, H, n, _ = w.shape
    vis = np.tril(np.ones((n, n), bool)) if causal else np.ones((n, n), bool)
    rows = vis.sum(1) >= 2  # queries with a choice to make
    later = rows & (np.arange(n) >= 1)
    i, j = np.indices((n, n))
    near = np.abs(i - j) <= 2
    # Induction targets: key after the latest earlier occurrence p of token i, if p + 1 < i.
    tgt = np.full(n, -1)
    for q in range(n):
        prev = [p for p in range(q) if tokens[p] == tokens[q]]
        if prev and prev[-1] + 1 < q:
            tgt[q] = prev[-1] + 1
    ind = rows & (tgt >= 0)
    out = {}
    for l in range(L):
        for h in range(H):
            A = w[l, h]
            with np.errstate(divide="ignore", invalid="ignore"):
                ent = -np.where(A > 0, A * np.log(A), 0).sum(1) / np.log(vis.sum(1))
            sc = {
                "previous_token": A[np.arange(1, n), np.arange(n - 1)][later[1:]].mean(),
                "self": np.diag(A)[rows].mean(),
                "first_token": A[:, 0][later].mean(),
                "local": (A * near).sum(1)[rows].mean(),
                "broad": ent[rows].mean(),
                "induction": A[np.arange(n)[ind], tgt[ind]].mean() if ind.any() else np.nan,
            }
            out[(l, h)] = sc
    return out


def label(sc):
    order = ["previous_token", "self", "first_token", "induction", "local", "broad"]
    vals = [v for v in sc.values() if not np.isnan(v)]
    best = max(vals)
    if best < 0.5:
        return "mixed"
    for p in order:
        if not np.isnan(sc[p]) and sc[p] >= best - 0.1:
            return p.replace("_", "-")


def read_census(path):
    if path.endswith(".csv"):
        rows = list(csv.DictReader(open(path)))
        # The header says how layers and heads are counted (the window counts from 1).
        assert list(rows[0].keys()) == ["layer_from_0", "head_from_0", "pattern"] + PATTERNS, \
            rows[0].keys()
        return {(int(r["layer_from_0"]), int(r["head_from_0"])):
                (r["pattern"], {p: float(r[p]) if r[p] else np.nan for p in PATTERNS}) for r in rows}
    d = json.load(open(path))
    assert d["format"] == "attnscope-census"
    return {(e["layer"], e["head"]):
            (e["pattern"], {p: np.nan if e["scores"][p] is None else e["scores"][p] for p in PATTERNS})
            for e in d["heads_census"]}


def check_census(src, out):
    w, tokens, causal = weights_of(src)
    ref = census(w, tokens, causal)
    got = read_census(out)
    assert set(got) == set(ref), (len(got), len(ref))
    worst, mismatched = 0.0, 0
    for key, sc in ref.items():
        pat, g = got[key]
        for p in PATTERNS:
            if np.isnan(sc[p]):
                assert np.isnan(g[p]), (key, p, g[p])
            else:
                worst = max(worst, abs(sc[p] - g[p]))
        # A label can only differ where numpy's own scores sit on a threshold.
        if pat != label(sc):
            mismatched += 1
    print(f"{src}: {len(ref)} heads, max |score - numpy| = {worst:.2e}, labels differing: {mismatched}")
    assert worst < 2e-5 and mismatched == 0
    return ref, got


def check_rollout(src, out):
    w, _, _ = weights_of(src)
    M = w.mean(1)
    n = M.shape[-1]
    R = []
    for l in range(M.shape[0]):
        a = 0.5 * M[l] + 0.5 * np.eye(n)
        a /= a.sum(1, keepdims=True)
        R.append(a if not R else a @ R[-1])
    R = np.array(R)
    got = np.load(out)["rollout"] if out.endswith(".npz") else np.array(json.load(open(out))["rollout"])
    assert got.shape == R.shape, (got.shape, R.shape)
    err = np.abs(got - R).max()
    print(f"{src}: rollout {got.shape}, max |rollout - numpy| = {err:.2e}")
    assert err < 2e-6


if __name__ == "__main__":
    what, src, out = sys.argv[1:4]
    if what == "census":
        ref, got = check_census(src, out)
        if len(sys.argv) > 4:  # expected label of a head: L,H,PATTERN
            l, h, p = sys.argv[4].split(",")
            assert got[(int(l), int(h))][0] == p, got[(int(l), int(h))]
    else:
        check_rollout(src, out)
