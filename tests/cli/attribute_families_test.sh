#!/usr/bin/env bash
# AttnScope — the gradient methods of `attnscope attribute` (saliency, input_x_gradient,
# integrated_gradients with ig_delta, attention_x_gradient) on the families beyond
# attribute_gradients_test.sh's: tiny random Gemma 2 (soft-capped scores and logits, sliding
# windows, (1 + w) sandwich norms), Gemma 3 (q/k norms, local rotary base), Phi-3 (fused q/k/v
# and gate_up, longrope past its original context, a window), OLMo-2 (norms after the blocks,
# whole-projection q/k norms, biases) and Mixtral (top-2 of 4 experts: the choice a constant,
# the gates' gradient flowing) against PyTorch autograd through forwards written here (float64)
# from transformers' formulas; and a Gemma 2 GGUF file (llama.cpp's tensor names, every norm
# stored as 1 + w, quantised matrices of several types) through the same Gemma forward on its
# dequantised weights. GPL-3.0-or-later.
#   attribute_families_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python_checks <<'PY'
import math, os, tempfile
import numpy as np
import torch
from cli_checks import check, finish
from attribution_torch import GRADIENT, T, attend, attribute, compare
import decoder_tiny, gemma_tiny, gguf_tiny

F = torch.nn.functional


def rope(t, f, scale=1.0):
    """t [heads, n, hd] at positions 0…n−1: (t·cos + rotate_half(t)·sin) · SCALE."""
    n, half = t.shape[1], t.shape[2] // 2
    ang = torch.arange(n)[:, None] * f[None, :]
    emb = torch.cat([ang, ang], -1)
    turned = torch.cat([-t[..., half:], t[..., :half]], -1)
    return (t * emb.cos() + turned * emb.sin()) * scale


def heads(t, n, count, hd):
    return t.reshape(n, count, hd).transpose(0, 1)


def gemma_forward(w, c, x, at):
    """modeling_gemma2 / _gemma3: GemmaRMSNorm (1 + w), sandwich norms, q/k norms (Gemma 3),
    query_pre_attn_scalar, soft-caps, windows on the window layers, GeGLU, the tied head."""
    eps, hd, H, KV = c["rms_norm_eps"], c["head_dim"], c["num_attention_heads"], c["num_key_value_heads"]
    g2 = c["model_type"] == "gemma2"
    rms = lambda t, g: t / torch.sqrt((t ** 2).mean(-1, keepdim=True) + eps) * (1 + g)  # noqa: E731
    f_global = T(gemma_tiny.inv_freq(c["rope_theta"], hd))
    f_local = f_global if g2 else T(gemma_tiny.inv_freq(c.get("rope_local_base_freq", 1e4), hd))
    kinds, atts = gemma_tiny.window_layers(c), []
    gelu = lambda t: 0.5 * t * (1 + torch.tanh(math.sqrt(2 / math.pi) * (t + 0.044715 * t ** 3)))  # noqa: E731
    for l in range(c["num_hidden_layers"]):
        p, n = f"model.layers.{l}.", x.shape[0]
        h = rms(x, w[p + "input_layernorm.weight"])
        q = heads(h @ w[p + "self_attn.q_proj.weight"].T, n, H, hd)
        k = heads(h @ w[p + "self_attn.k_proj.weight"].T, n, KV, hd)
        v = heads(h @ w[p + "self_attn.v_proj.weight"].T, n, KV, hd)
        if not g2:
            q, k = rms(q, w[p + "self_attn.q_norm.weight"]), rms(k, w[p + "self_attn.k_norm.weight"])
        f = f_local if kinds[l] else f_global
        q, k = rope(q, f), rope(k, f)
        k, v = k.repeat_interleave(H // KV, 0), v.repeat_interleave(H // KV, 0)
        att, z = attend(q, k, v, l, True, {}, scale=c["query_pre_attn_scalar"] ** -0.5,
                        cap=c.get("attn_logit_softcapping"),
                        window=c["sliding_window"] if kinds[l] else None)
        atts.append(att)
        x = x + rms(z @ w[p + "self_attn.o_proj.weight"].T, w[p + "post_attention_layernorm.weight"])
        h2 = rms(x, w[p + "pre_feedforward_layernorm.weight"])
        m = gelu(h2 @ w[p + "mlp.gate_proj.weight"].T) * (h2 @ w[p + "mlp.up_proj.weight"].T)
        x = x + rms(m @ w[p + "mlp.down_proj.weight"].T, w[p + "post_feedforward_layernorm.weight"])
    logits = w["model.embed_tokens.weight"] @ rms(x[at], w["model.norm.weight"])
    fc = c.get("final_logit_softcapping")
    return (torch.tanh(logits / fc) * fc if fc else logits), atts


def decoder_forward(w, c, x, at):
    """modeling_phi3 / _olmo2 / _mixtral: fused projections and longrope, norms after the
    blocks and over whole projections, the sparse mixture (argsort's choice held fixed)."""
    t, eps, hd = c["model_type"], c["rms_norm_eps"], decoder_tiny.head_dim(c)
    H, KV, n = c["num_attention_heads"], c["num_key_value_heads"], x.shape[0]
    qd, kvd = H * hd, KV * hd
    rms = lambda a, g: a / torch.sqrt((a ** 2).mean(-1, keepdim=True) + eps) * g  # noqa: E731
    lin = lambda a, name: a @ w[name + ".weight"].T + (w[name + ".bias"] if name + ".bias" in w else 0)  # noqa: E731
    swiglu = lambda a, g, u, d: lin(F.silu(lin(a, g)) * lin(a, u), d)  # noqa: E731
    f, factor = decoder_tiny.rope_parameters(c, n)
    f, atts = T(f), []
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        h = x if t == "olmo2" else rms(x, w[p + "input_layernorm.weight"])
        if t == "phi3":
            qkv = lin(h, p + "self_attn.qkv_proj")
            q, k, v = qkv[:, :qd], qkv[:, qd:qd + kvd], qkv[:, qd + kvd:]
        else:
            q, k, v = (lin(h, p + "self_attn." + m) for m in ("q_proj", "k_proj", "v_proj"))
        if t == "olmo2":
            q, k = rms(q, w[p + "self_attn.q_norm.weight"]), rms(k, w[p + "self_attn.k_norm.weight"])
        q, k, v = rope(heads(q, n, H, hd), f, factor), rope(heads(k, n, KV, hd), f, factor), heads(v, n, KV, hd)
        k, v = k.repeat_interleave(H // KV, 0), v.repeat_interleave(H // KV, 0)
        att, z = attend(q, k, v, l, True, {}, window=c.get("sliding_window"))
        atts.append(att)
        a = lin(z, p + "self_attn.o_proj")
        if t == "olmo2":
            x = x + rms(a, w[p + "post_attention_layernorm.weight"])
            m = swiglu(x, p + "mlp.gate_proj", p + "mlp.up_proj", p + "mlp.down_proj")
            x = x + rms(m, w[p + "post_feedforward_layernorm.weight"])
            continue
        x = x + a
        h2 = rms(x, w[p + "post_attention_layernorm.weight"])
        if t == "phi3":
            g, u = lin(h2, p + "mlp.gate_up_proj").chunk(2, -1)
            x = x + lin(F.silu(g) * u, p + "mlp.down_proj")
            continue
        e, top = p + "block_sparse_moe.", c["num_experts_per_tok"]
        logits = lin(h2, e + "gate")
        chosen = torch.argsort(-torch.softmax(logits.detach(), -1), dim=-1, stable=True)[:, :top]
        gates = torch.softmax(logits.gather(1, chosen), -1)  # the top-k renormalised
        moe = torch.zeros_like(x)
        for r in range(n):
            for j in range(top):
                ex = f"{e}experts.{int(chosen[r, j])}."
                moe = moe + F.one_hot(torch.tensor(r), n)[:, None] * gates[r, j] * swiglu(
                    h2[r], ex + "w1", ex + "w3", ex + "w2")
        x = x + moe
    head = w["model.embed_tokens.weight"] if c.get("tie_word_embeddings") else w["lm_head.weight"]
    return head @ rms(x[at], w["model.norm.weight"]), atts


TEXT = "the cat sat on the mat and then a dog ran far"
with tempfile.TemporaryDirectory() as tmp:
    for kind in ("gemma2", "gemma3_text"):
        c = gemma_tiny.config(kind, layers=3)
        folder = os.path.join(tmp, kind)
        w = gemma_tiny.tiny_folder(folder, 5, c)
        tw = {k: T(v) for k, v in w.items()}
        z = attribute(folder, TEXT, "--methods", GRADIENT, "--steps", "16")
        if z is not None:
            ids = [int(i) for i in z["token_ids"]]
            x0 = w["model.embed_tokens.weight"].astype(np.float64)[ids] * np.float32(math.sqrt(c["hidden_size"]))
            compare(kind, z, lambda x, at, tw=tw, c=c: gemma_forward(tw, c, x, at), x0, 16, 3,
                    c["num_attention_heads"])
    # The GGUF Gemma 2: its soft-caps and window from the metadata (a final cap of 100: the tied
    # head's raw logit is near 100, which a cap of 3 or 30 would flatten to a vanishing gradient);
    # its matrices K-, legacy- and half-precision blocks, the reference reading what they decode to.
    c = gguf_tiny.gemma2_config(final_logit_softcapping=100.0)
    path = os.path.join(tmp, "gemma2.gguf")
    w = gguf_tiny.gemma2_gguf(path, c, ["Q4_K", "Q8_0", "Q6_K", "F16", "Q5_K", "BF16", "Q4_0"], 29)
    tw = {k: T(v) for k, v in w.items()}
    z = attribute(path, TEXT, "--methods", GRADIENT, "--steps", "16")
    if z is not None:
        ids = [int(i) for i in z["token_ids"]]
        check(len(ids) > c["sliding_window"], f"gemma2 GGUF: {len(ids)} tokens, past the window")
        x0 = w["model.embed_tokens.weight"].astype(np.float64)[ids] * np.float32(math.sqrt(c["hidden_size"]))
        compare("gemma2 GGUF", z, lambda x, at, tw=tw, c=c: gemma_forward(tw, c, x, at), x0, 16,
                c["num_hidden_layers"], c["num_attention_heads"])
    configs = {"phi3": decoder_tiny.phi3_longrope(decoder_tiny.config("phi3", sliding_window=5)),
               "olmo2": decoder_tiny.config("olmo2", attention_bias=True),
               "mixtral": decoder_tiny.config("mixtral")}
    for kind, c in configs.items():
        folder = os.path.join(tmp, kind)
        w = decoder_tiny.tiny_folder(folder, 13, c)
        tw = {k: T(v) for k, v in w.items()}
        z = attribute(folder, TEXT, "--methods", GRADIENT, "--steps", "16")
        if z is not None:
            ids = [int(i) for i in z["token_ids"]]
            if kind == "phi3":
                check(len(ids) > 8, f"phi3: {len(ids)} tokens, past longrope's original 8")
            compare(kind, z, lambda x, at, tw=tw, c=c: decoder_forward(tw, c, x, at),
                    w["model.embed_tokens.weight"].astype(np.float64)[ids], 16, 2,
                    c["num_attention_heads"])
finish()
PY
