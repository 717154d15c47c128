# AttnScope — token attributions in numpy (float64): the independent reference of
# tests/cli/attribute_test.sh. GPL-3.0-or-later.
# Written from the papers' definitions as issue #39 states them (Kobayashi et al. 2020's
# norm-based attribution, Mohebbi et al. 2023's value zeroing, Ferrando et al. 2022's ALTI,
# Abnar & Zuidema 2020's rollout and attention flow, ERASER's comprehensiveness, Kendall's τ-b),
# on forwards written here from each family's formulas (tests/core/*_tiny.py), not the C++ code.
# Attention flow uses networkx's maximum flow.
import math

import numpy as np

import bert_tiny
import gpt2_tiny
import llama_tiny


class Gpt2:
    """GPT-2 (pre-norm LayerNorm, Conv1D weights [in, out])."""
    causal = True

    def __init__(self, w, ablate=(), mode="zero", knockouts=()):
        """ABLATE: (l, h) whose z is zero or its mean over positions (MODE); KNOCKOUTS:
        (l, h, q, k), q = -1 for every query: the weight removed, the row renormalised."""
        self.w = {k: v.astype(np.float64) for k, v in w.items()}
        self.layers = len({k.split(".")[1] for k in w if k.startswith("h.")})
        self.heads, self.d = gpt2_tiny.H, gpt2_tiny.D
        self.ablate, self.mode, self.knockouts = set(ablate), mode, list(knockouts)

    def embed(self, ids):
        return self.w["wte.weight"][ids] + self.w["wpe.weight"][:len(ids)]

    def layer(self, l, x, zero_value=None):
        w, p, n, H, D = self.w, f"h.{l}.", len(x), self.heads, self.d
        dk = D // H
        a = gpt2_tiny.layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"])
        q, k, v = np.split(a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"], 3, axis=1)
        q, k, v = (t.reshape(n, H, dk).transpose(1, 0, 2) for t in (q, k, v))
        if zero_value is not None:
            v = v.copy()
            v[:, zero_value] = 0
        s = np.where(np.tril(np.ones((n, n), bool)), q @ k.transpose(0, 2, 1) / math.sqrt(dk),
                     -np.inf)
        for (kl, kh, kq, kk) in self.knockouts:
            if kl == l:
                s[kh, range(n) if kq < 0 else [kq], kk] = -np.inf
        att = np.exp(s - s.max(-1, keepdims=True))
        att /= att.sum(-1, keepdims=True)
        z, alpha = att @ v, att.copy()
        for h in range(H):
            if (l, h) in self.ablate:
                # z itself is replaced; alpha is what z then is a sum of: z = alpha · v.
                zero = self.mode == "zero"
                z[h] = 0 if zero else np.tile(z[h].mean(0), (n, 1))
                alpha[h] = 0 if zero else np.tile(att[h].mean(0), (n, 1))
        wo = w[p + "attn.c_proj.weight"]
        attn = z.transpose(1, 0, 2).reshape(n, D) @ wo + w[p + "attn.c_proj.bias"]
        y = x + attn
        m = gpt2_tiny.layer_norm(y, w[p + "ln_2.weight"], w[p + "ln_2.bias"])
        hdn = m @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]
        hdn = 0.5 * hdn * (1 + np.tanh(np.sqrt(2 / np.pi) * (hdn + 0.044715 * hdn ** 3)))
        out = y + hdn @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
        return {"out": out, "att": att, "alpha": alpha, "v": v, "block": y,
                "bo": w[p + "attn.c_proj.bias"], "wo": [wo[h * dk:(h + 1) * dk] for h in range(H)],
                "norm": None}

    def logits(self, x, at):
        w = self.w
        return w["wte.weight"] @ gpt2_tiny.layer_norm(x[at], w["ln_f.weight"], w["ln_f.bias"])


class Llama:
    """The Llama family (RMSNorm, RoPE, grouped-query attention, SwiGLU; nn.Linear [out, in])."""
    causal = True

    def __init__(self, w, c):
        self.w, self.c = {k: v.astype(np.float64) for k, v in w.items()}, c
        self.layers, self.heads = c["num_hidden_layers"], c["num_attention_heads"]
        self.kv, self.d, self.hd = c["num_key_value_heads"], c["hidden_size"], llama_tiny.head_dim(c)
        self.b = llama_tiny.biases(c)

    def lin(self, x, name, bias):
        return x @ self.w[name + ".weight"].T + (self.w[name + ".bias"] if bias else 0)

    def embed(self, ids):
        return self.w["model.embed_tokens.weight"][ids]

    def layer(self, l, x, zero_value=None):
        w, c, p, n = self.w, self.c, f"model.layers.{l}.", len(x)
        H, KV, hd, eps = self.heads, self.kv, self.hd, c["rms_norm_eps"]
        qkv_b, o_b, mlp_b = self.b
        h = llama_tiny.rms(x, w[p + "input_layernorm.weight"], eps)
        q = self.lin(h, p + "self_attn.q_proj", qkv_b).reshape(n, H, hd).transpose(1, 0, 2)
        k = self.lin(h, p + "self_attn.k_proj", qkv_b).reshape(n, KV, hd).transpose(1, 0, 2)
        v = self.lin(h, p + "self_attn.v_proj", qkv_b).reshape(n, KV, hd).transpose(1, 0, 2)
        f = llama_tiny.inv_freq(c)
        q, k = llama_tiny.rope(q, f), llama_tiny.rope(k, f)
        k, v = np.repeat(k, H // KV, axis=0), np.repeat(v, H // KV, axis=0)
        if zero_value is not None:
            v = v.copy()
            v[:, zero_value] = 0
        s = np.where(np.tril(np.ones((n, n), bool)), q @ k.transpose(0, 2, 1) / math.sqrt(hd),
                     -np.inf)
        att = np.exp(s - s.max(-1, keepdims=True))
        att /= att.sum(-1, keepdims=True)
        z = (att @ v).transpose(1, 0, 2).reshape(n, H * hd)
        y = x + self.lin(z, p + "self_attn.o_proj", o_b)
        h2 = llama_tiny.rms(y, w[p + "post_attention_layernorm.weight"], eps)
        g, u = self.lin(h2, p + "mlp.gate_proj", mlp_b), self.lin(h2, p + "mlp.up_proj", mlp_b)
        out = y + self.lin(g / (1 + np.exp(-g)) * u, p + "mlp.down_proj", mlp_b)
        wo = w[p + "self_attn.o_proj.weight"]
        bo = w[p + "self_attn.o_proj.bias"] if o_b else np.zeros(self.d)
        return {"out": out, "att": att, "v": v, "block": y, "bo": bo,
                "wo": [wo[:, h * hd:(h + 1) * hd].T for h in range(H)], "norm": None}

    def logits(self, x, at):
        w, c = self.w, self.c
        head = w["model.embed_tokens.weight"] if c.get("tie_word_embeddings") else w["lm_head.weight"]
        return head @ llama_tiny.rms(x[at], w["model.norm.weight"], c["rms_norm_eps"])


class Bert:
    """BERT (post-norm LayerNorm after each block, bidirectional; nn.Linear [out, in])."""
    causal = False

    def __init__(self, w):
        self.w = {k: v.astype(np.float64) for k, v in w.items()}
        self.layers, self.heads, self.d = bert_tiny.L, bert_tiny.H, bert_tiny.D

    def lin(self, a, name):
        return a @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def embed(self, ids):
        w, e, n = self.w, "embeddings.", len(ids)
        types = np.zeros(n, int)
        seps = [i for i, t in enumerate(ids) if t == bert_tiny.SEP]
        if seps and seps[0] < n - 1:
            types[seps[0] + 1:] = 1
        x = w[e + "word_embeddings.weight"][ids] + w[e + "position_embeddings.weight"][:n] + \
            w[e + "token_type_embeddings.weight"][types]
        return bert_tiny.layer_norm(x, w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"])

    def layer(self, l, x, zero_value=None):
        w, p, n, H, D = self.w, f"encoder.layer.{l}.", len(x), self.heads, self.d
        dk = D // H
        q, k, v = (self.lin(x, p + f"attention.self.{m}").reshape(n, H, dk).transpose(1, 0, 2)
                   for m in ("query", "key", "value"))
        if zero_value is not None:
            v = v.copy()
            v[:, zero_value] = 0
        s = q @ k.transpose(0, 2, 1) / math.sqrt(dk)
        att = np.exp(s - s.max(-1, keepdims=True))
        att /= att.sum(-1, keepdims=True)
        ctx = (att @ v).transpose(1, 0, 2).reshape(n, D)
        g, b = w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"]
        y = bert_tiny.layer_norm(x + self.lin(ctx, p + "attention.output.dense"), g, b)
        hdn = bert_tiny.gelu(self.lin(y, p + "intermediate.dense"))
        out = bert_tiny.layer_norm(y + self.lin(hdn, p + "output.dense"),
                                   w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        wo = w[p + "attention.output.dense.weight"]
        return {"out": out, "att": att, "v": v, "block": y, "bo": w[p + "attention.output.dense.bias"],
                "wo": [wo[:, h * dk:(h + 1) * dk].T for h in range(H)], "norm": (g, b, bert_tiny.EPS)}

    def logits(self, x, at):
        w, c = self.w, "cls.predictions."
        t = bert_tiny.layer_norm(bert_tiny.gelu(self.lin(x[at:at + 1], c + "transform.dense"))[0],
                                 w[c + "transform.LayerNorm.weight"], w[c + "transform.LayerNorm.bias"])
        return w["embeddings.word_embeddings.weight"] @ t + w[c + "bias"]


def forward(m, ids, at, zero_rows=()):
    """Inputs of every layer [L+1], each layer's parts, and the logits at AT; ZERO_ROWS: rows of
    x0 zeroed first."""
    x = m.embed(ids)
    x[list(zero_rows)] = 0
    xs, parts = [x], []
    for l in range(m.layers):
        r = m.layer(l, x)
        parts.append(r)
        x = r["out"]
        xs.append(x)
    return xs, parts, m.logits(x, at)


def norm_based(m, parts):
    """[L, H, n, n]: ‖α_ij · v_j W_O^h‖, α the weights z is a sum of (ablation applied)."""
    out = []
    for r in parts:
        out.append([r.get("alpha", r["att"])[h] *
                    np.linalg.norm(r["v"][h] @ r["wo"][h], axis=1)[None, :]
                    for h in range(m.heads)])
    return np.array(out)


def value_zeroing(m, xs, parts):
    """[L, n, n]: 1 − cos of layer l's output with token j's value zeroed, rows normalised."""
    n, out = len(xs[0]), []
    for l, r in enumerate(parts):
        c = np.zeros((n, n))
        for j in range(n):
            z = m.layer(l, xs[l], zero_value=j)["out"]
            y = r["out"]
            c[:, j] = 1 - (y * z).sum(1) / (np.linalg.norm(y, axis=1) * np.linalg.norm(z, axis=1))
        c = np.maximum(c, 0)
        s = c.sum(1, keepdims=True)
        out.append(np.where(s > 0, c / np.where(s > 0, s, 1), 0))
    return np.array(out)


def alti_terms(m, x, r, i):
    """T_i(x_j) for every j [n, D] and the constant: y_i = Σ_j T_i(x_j) + constant."""
    n = len(x)
    t = np.zeros((n, m.d))
    t[i] = x[i]
    for h in range(m.heads):
        t += r.get("alpha", r["att"])[h][i][:, None] * (r["v"][h] @ r["wo"][h])
    const = r["bo"].copy()
    if r["norm"] is None:
        return t, const
    g, b, eps = r["norm"]
    u = t.sum(0) + const
    sigma = math.sqrt(((u - u.mean()) ** 2).mean() + eps)
    t = (t - t.mean(1, keepdims=True)) * g / sigma
    return t, (const - const.mean()) * g / sigma + b


def alti(m, xs, parts):
    """[L, n, n] and checks of the identity: returns (contributions, worst |Σ T + c − y|)."""
    n, out, worst = len(xs[0]), [], 0.0
    for l, r in enumerate(parts):
        c = np.zeros((n, n))
        for i in range(n):
            t, const = alti_terms(m, xs[l], r, i)
            y = t.sum(0) + const
            worst = max(worst, np.abs(y - r["block"][i]).max())
            c[i] = np.maximum(0, np.abs(y).sum() - np.abs(y[None, :] - t).sum(1))
        s = c.sum(1, keepdims=True)  # a row of zeros stays zero
        out.append(np.where(s > 0, c / np.where(s > 0, s, 1), 0))
    return np.array(out), worst


def mixed(parts):
    """Â_l = ½·mean_h A + ½·I for every layer."""
    return [0.5 * r["att"].mean(0) + 0.5 * np.eye(r["att"].shape[-1]) for r in parts]


def rollout(parts):
    r = None
    for a in mixed(parts):
        r = a if r is None else a @ r
    return r


def attention_flow(parts):
    """flow[i, j]: networkx's maximum flow from (0, j) to (L, i)."""
    import networkx as nx
    a = mixed(parts)
    n, layers = a[0].shape[0], len(a)
    g = nx.DiGraph()
    for l in range(layers):
        for i in range(n):
            for j in range(n):
                if a[l][i, j] > 0:
                    g.add_edge((l, j), (l + 1, i), capacity=a[l][i, j])
    flow = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if (0, j) in g and (layers, i) in g:
                flow[i, j] = nx.maximum_flow_value(g, (0, j), (layers, i))
    return flow


def erasure(m, ids, at, target, scores, k_max):
    """The target's logit with the x0 rows of the top k positions (|score|, ties lower first)
    zeroed, k = 0…K."""
    cand = [p for p in range(at if m.causal else len(ids)) if p != at]
    order = sorted(cand, key=lambda p: (-abs(scores[p]), p))
    return np.array([forward(m, ids, at, order[:k])[2][target] for k in range(k_max + 1)])


def kendall_tau_b(a, b):
    """By its definition, pair by pair."""
    nc = nd = ta = tb = pairs = 0
    for i in range(len(a)):
        for j in range(i + 1, len(a)):
            da, db = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
            pairs += 1
            ta += da == 0
            tb += db == 0
            if da * db > 0:
                nc += 1
            elif da * db < 0:
                nd += 1
    den = math.sqrt((pairs - ta) * (pairs - tb))
    return (nc - nd) / den if den > 0 else float("nan")
