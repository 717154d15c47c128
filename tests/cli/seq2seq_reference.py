# AttnScope — an independent numpy encoder–decoder (float64): Marian and T5 as transformers'
# MarianMTModel and T5ForConditionalGeneration compute them, and issue #40's greedy / beam
# search. GPL-3.0-or-later.
import math

import numpy as np


def softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def mha(xq, xkv, w, p, heads, mult, bias=None, causal=False, has_bias=True, names="qkvo",
        ablated=(), hook=None, site=None):
    """Multi-head attention of XQ over XKV with the projections P + names, the heads in ABLATED
    contributing zero; HOOK (when given) changes each head's weights (hook.pattern(SITE, h, a))
    and output (hook.z(SITE, h, z)), SITE being (part, layer); (out, [H,nq,nk])."""
    def lin(x, n):
        y = x @ w[p + n + ".weight"].T
        return y + w[p + n + ".bias"] if has_bias else y
    q, k, v = lin(xq, names[0]), lin(xkv, names[1]), lin(xkv, names[2])
    hd = q.shape[1] // heads
    nq, nk = len(xq), len(xkv)
    outs, weights = [], []
    for h in range(heads):
        s = mult * q[:, h * hd:(h + 1) * hd] @ k[:, h * hd:(h + 1) * hd].T
        if bias is not None:
            s = s + bias[h]
        if causal:
            s = np.where(np.arange(nk)[None, :] <= np.arange(nq)[:, None], s, -np.inf)
        a = softmax(s)
        if hook is not None:
            a = hook.pattern(site, h, a)
        weights.append(a)
        z = 0 * a @ v[:, h * hd:(h + 1) * hd] if h in ablated else a @ v[:, h * hd:(h + 1) * hd]
        outs.append(hook.z(site, h, z) if hook is not None else z)
    return lin(np.concatenate(outs, 1), names[3]), np.array(weights)


def layer_norm(x, w, b):
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + 1e-5) * w + b


def marian_positions(n, d):
    pos = np.arange(n)[:, None] / np.power(10000, 2 * (np.arange(d) // 2) / d)[None, :]
    half = d // 2 if d % 2 == 0 else d // 2 + 1
    out = np.empty((n, d))
    out[:, :half] = np.sin(pos[:, 0::2])
    out[:, half:] = np.cos(pos[:, 1::2])
    return out


ACTS = {"swish": lambda x: x / (1 + np.exp(-x)), "silu": lambda x: x / (1 + np.exp(-x)),
        "relu": lambda x: np.maximum(x, 0),
        "gelu_new": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))}


def cut(ablate, part, layer):
    """The heads of ABLATE ("part.L.H" strings) in PART's layer LAYER."""
    return {int(a.split(".")[2]) for a in ablate if a.split(".")[:2] == [part, str(layer)]}


def marian(w, c, src, tgt, scale=None, ablate=(), hook=None):
    """(encoder [L,H,ns,ns], decoder [L,H,nt,nt], cross [L,H,nt,ns], logits [nt,V]); HOOK (when
    given) sees each head (mha's), the decoder's stream entering each layer and leaving the last
    (hook.resid(l, y)) and the readout (hook.readout(fn): fn(y) the logits of rows y)."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    d, H = c["d_model"], c["encoder_attention_heads"]
    mult = 1 / math.sqrt(d // H) if scale in (None, True) else 1.0
    act = ACTS[c["activation_function"]]
    shared = c["share_encoder_decoder_embeddings"]
    e_src = w["model.shared.weight" if shared else "model.encoder.embed_tokens.weight"]
    e_tgt = w["model.shared.weight" if shared else "model.decoder.embed_tokens.weight"]
    head = w.get("lm_head.weight", e_tgt)

    def ln(x, n):
        return layer_norm(x, w[n + ".weight"], w[n + ".bias"])

    def ffn(x, p):
        return act(x @ w[p + "fc1.weight"].T + w[p + "fc1.bias"]) @ w[p + "fc2.weight"].T + w[p + "fc2.bias"]
    names = ("q_proj", "k_proj", "v_proj", "out_proj")
    x = e_src[src] * math.sqrt(d) + marian_positions(len(src), d)
    enc = []
    for l in range(c["encoder_layers"]):
        p = f"model.encoder.layers.{l}."
        a, wt = mha(x, x, w, p + "self_attn.", H, mult, names=names, ablated=cut(ablate, "encoder", l),
                    hook=hook, site=("encoder", l))
        enc.append(wt)
        x = ln(x + a, p + "self_attn_layer_norm")
        x = ln(x + ffn(x, p), p + "final_layer_norm")
    y = e_tgt[tgt] * math.sqrt(d) + marian_positions(len(tgt), d)
    dec, cross = [], []
    for l in range(c["decoder_layers"]):
        p = f"model.decoder.layers.{l}."
        if hook is not None:
            hook.resid(l, y)
        a, wt = mha(y, y, w, p + "self_attn.", H, mult, causal=True, names=names,
                    ablated=cut(ablate, "decoder", l), hook=hook, site=("decoder", l))
        dec.append(wt)
        y = ln(y + a, p + "self_attn_layer_norm")
        a, wt = mha(y, x, w, p + "encoder_attn.", H, mult, names=names, ablated=cut(ablate, "cross", l),
                    hook=hook, site=("cross", l))
        cross.append(wt)
        y = ln(y + a, p + "encoder_attn_layer_norm")
        y = ln(y + ffn(y, p), p + "final_layer_norm")
    if hook is not None:
        hook.resid(c["decoder_layers"], y)
        hook.readout(lambda rows: rows @ head.T + w["final_logits_bias"][0])
    logits = y @ head.T + w["final_logits_bias"][0]
    return np.array(enc), np.array(dec), np.array(cross), logits


def t5_bucket(rel, bidirectional, buckets, max_distance):
    """transformers' T5Attention._relative_position_bucket (its float32 logarithm)."""
    out = np.zeros_like(rel)
    if bidirectional:
        buckets //= 2
        out += (rel > 0).astype(rel.dtype) * buckets
        rel = np.abs(rel)
    else:
        rel = -np.minimum(rel, 0)
    exact = buckets // 2
    with np.errstate(divide="ignore"):
        large = exact + (np.log(np.maximum(rel, 1).astype(np.float32) / np.float32(exact)) /
                         np.float32(math.log(max_distance / exact)) *
                         np.float32(buckets - exact)).astype(np.int64)
    large = np.minimum(large, buckets - 1)
    return out + np.where(rel < exact, rel, large)


def t5(w, c, src, tgt, scale=None, ablate=(), hook=None):
    """As marian's, for T5."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    d, H, dkv = c["d_model"], c["num_heads"], c["d_kv"]
    mult = 1 / math.sqrt(dkv) if scale is True else 1.0
    proj = c["feed_forward_proj"]
    gated = proj.startswith("gated-")
    act = ACTS["gelu_new" if proj == "gated-gelu" else proj.replace("gated-", "")]
    nb, md, eps = c["relative_attention_num_buckets"], c["relative_attention_max_distance"], c["layer_norm_epsilon"]

    def rms(x, n):
        return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps) * w[n + ".weight"]

    def ffn(x, p):
        if gated:
            h = act(x @ w[p + "wi_0.weight"].T) * (x @ w[p + "wi_1.weight"].T)
        else:
            h = act(x @ w[p + "wi.weight"].T)
        return h @ w[p + "wo.weight"].T

    def bias(side, n, bidirectional):
        rel = np.arange(n)[None, :] - np.arange(n)[:, None]
        b = t5_bucket(rel, bidirectional, nb, md)
        table = w[f"{side}.block.0.layer.0.SelfAttention.relative_attention_bias.weight"]
        return np.transpose(table[b], (2, 0, 1))
    x = w["shared.weight"][src]
    eb = bias("encoder", len(src), True)
    enc = []
    for l in range(c["num_layers"]):
        p = f"encoder.block.{l}.layer."
        h = rms(x, p + "0.layer_norm")
        a, wt = mha(h, h, w, p + "0.SelfAttention.", H, mult, bias=eb, has_bias=False,
                    ablated=cut(ablate, "encoder", l), hook=hook, site=("encoder", l))
        enc.append(wt)
        x = x + a
        x = x + ffn(rms(x, p + "1.layer_norm"), p + "1.DenseReluDense.")
    x = rms(x, "encoder.final_layer_norm")
    y = w["shared.weight"][tgt]
    db = bias("decoder", len(tgt), False)
    dec, cross = [], []
    for l in range(c["num_decoder_layers"]):
        p = f"decoder.block.{l}.layer."
        if hook is not None:
            hook.resid(l, y)
        h = rms(y, p + "0.layer_norm")
        a, wt = mha(h, h, w, p + "0.SelfAttention.", H, mult, bias=db, causal=True, has_bias=False,
                    ablated=cut(ablate, "decoder", l), hook=hook, site=("decoder", l))
        dec.append(wt)
        y = y + a
        a, wt = mha(rms(y, p + "1.layer_norm"), x, w, p + "1.EncDecAttention.", H, mult,
                    has_bias=False, ablated=cut(ablate, "cross", l), hook=hook, site=("cross", l))
        cross.append(wt)
        y = y + a
        y = y + ffn(rms(y, p + "2.layer_norm"), p + "2.DenseReluDense.")

    def readout(rows):
        rows = rms(rows, "decoder.final_layer_norm")
        if c["tie_word_embeddings"]:
            return (rows * d ** -0.5) @ w["shared.weight"].T
        return rows @ w["lm_head.weight"].T
    if hook is not None:
        hook.resid(c["num_decoder_layers"], y)
        hook.readout(readout)
    logits = readout(y)
    return np.array(enc), np.array(dec), np.array(cross), logits


def search(last_logits, start, eos, beam, max_tokens, alpha, banned=()):
    """Issue #40's search: the best B − F extensions stay live, BANNED tokens never chosen;
    (tokens, finished, shrank)."""
    live, finished, shrank = [([], 0.0)], [], False
    for step in range(max_tokens):
        if not live:
            break
        cands = []
        for hi, (toks, s) in enumerate(live):
            z = last_logits([start] + toks).copy()
            z[list(banned)] = -np.inf
            lp = z - z.max() - math.log(np.exp(z - z.max()).sum())
            cands += [(s + lp[t], hi, t) for t in range(len(lp)) if t not in banned]
        cands.sort(key=lambda c: (-c[0], c[1], c[2]))
        nxt = []
        for s, hi, t in cands[:beam - len(finished)]:
            toks = live[hi][0] + [t]
            if t == eos:
                finished.append((toks, s / len(toks) ** alpha, True))
            else:
                nxt.append((toks, s))
        live = nxt
        if finished and live and step + 1 < max_tokens:
            shrank = True
        if len(finished) >= beam:
            break
    every = finished + [(t, s / len(t) ** alpha, False) for t, s in live]
    best = every[0]
    for e in every:
        if e[1] > best[1]:
            best = e
    return best[0], best[2], shrank
