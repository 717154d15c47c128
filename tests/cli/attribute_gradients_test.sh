#!/usr/bin/env bash
# AttnScope — the gradient methods of `attnscope attribute` (saliency, input_x_gradient,
# integrated_gradients with ig_delta, attention_x_gradient) on tiny random GPT-2, Llama (grouped-
# query attention, RoPE), Qwen2 (q/k/v biases), GPT-NeoX (partial rotary, parallel and sequential
# residuals) and BERT folders against PyTorch autograd through
# forwards written here (float64) from each family's formulas; ig_delta shrinking as the steps
# grow; interventions and the temperature inside; their erasure curves against numpy's reruns.
# GPL-3.0-or-later.
#   attribute_gradients_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python_checks <<'PY'
import math, os, subprocess, tempfile
import numpy as np
import torch
from cli_checks import BIN, check, finish
from attribution_torch import GRADIENT, T, attend, attribute, compare, worst
import attribution_numpy as ref
import bert_tiny, gpt2_tiny, gpt_neox_tiny, llama_tiny


def ln(x, g, b, eps):
    mu = x.mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(((x - mu) ** 2).mean(-1, keepdim=True) + eps) * g + b


def gpt2_forward(w, x, at, iv):
    atts, H = [], gpt2_tiny.H
    layers = len({k.split(".")[1] for k in w if k.startswith("h.")})
    for l in range(layers):
        p, n = f"h.{l}.", x.shape[0]
        a = ln(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"], 1e-5)
        q, k, v = (t.reshape(n, H, -1).transpose(0, 1)
                   for t in (a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]).chunk(3, 1))
        att, z = attend(q, k, v, l, True, iv)
        atts.append(att)
        x = x + z @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        m = ln(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"], 1e-5) @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]
        m = 0.5 * m * (1 + torch.tanh(math.sqrt(2 / math.pi) * (m + 0.044715 * m ** 3)))
        x = x + m @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    return w["wte.weight"] @ ln(x[at], w["ln_f.weight"], w["ln_f.bias"], 1e-5), atts


def llama_forward(w, c, x, at, iv):
    H, KV, hd, eps = c["num_attention_heads"], c["num_key_value_heads"], llama_tiny.head_dim(c), c["rms_norm_eps"]
    qkv_b, o_b, mlp_b = llama_tiny.biases(c)
    rms = lambda t, g: t / torch.sqrt((t ** 2).mean(-1, keepdim=True) + eps) * g  # noqa: E731
    lin = lambda t, name, b: t @ w[name + ".weight"].T + (w[name + ".bias"] if b else 0)  # noqa: E731
    f, atts = T(llama_tiny.inv_freq(c)), []
    for l in range(c["num_hidden_layers"]):
        p, n = f"model.layers.{l}.", x.shape[0]
        ang = torch.arange(n)[:, None] * f[None, :]
        cos, sin = torch.cat([ang, ang], -1).cos(), torch.cat([ang, ang], -1).sin()
        rope = lambda t: t * cos + torch.cat([-t[..., hd // 2:], t[..., :hd // 2]], -1) * sin  # noqa: E731
        h = rms(x, w[p + "input_layernorm.weight"])
        q = rope(lin(h, p + "self_attn.q_proj", qkv_b).reshape(n, H, hd).transpose(0, 1))
        k = rope(lin(h, p + "self_attn.k_proj", qkv_b).reshape(n, KV, hd).transpose(0, 1))
        v = lin(h, p + "self_attn.v_proj", qkv_b).reshape(n, KV, hd).transpose(0, 1)
        k, v = k.repeat_interleave(H // KV, 0), v.repeat_interleave(H // KV, 0)
        att, z = attend(q, k, v, l, True, iv)
        atts.append(att)
        x = x + lin(z, p + "self_attn.o_proj", o_b)
        h2 = rms(x, w[p + "post_attention_layernorm.weight"])
        g, u = lin(h2, p + "mlp.gate_proj", mlp_b), lin(h2, p + "mlp.up_proj", mlp_b)
        x = x + lin(torch.nn.functional.silu(g) * u, p + "mlp.down_proj", mlp_b)
    head = w["model.embed_tokens.weight"] if c.get("tie_word_embeddings") else w["lm_head.weight"]
    return head @ rms(x[at], w["model.norm.weight"]), atts


def neox_forward(w, c, x, at, iv):
    lin = lambda t, name: t @ w[name + ".weight"].T + w[name + ".bias"]  # noqa: E731
    lnp = lambda t, name: ln(t, w[name + ".weight"], w[name + ".bias"], c["layer_norm_eps"])  # noqa: E731
    gelu = lambda t: 0.5 * t * (1 + torch.erf(t / math.sqrt(2)))  # noqa: E731
    H, d, atts = c["num_attention_heads"], c["hidden_size"], []
    hd = d // H
    rot = int(hd * c["rotary_pct"])
    f = 1.0 / c["rotary_emb_base"] ** (torch.arange(0, rot, 2) / rot)

    def rope(t):
        ang = torch.arange(t.shape[1])[:, None] * f[None, :]
        cos, sin = torch.cat([ang, ang], -1).cos(), torch.cat([ang, ang], -1).sin()
        r, rest = t[..., :rot], t[..., rot:]
        turned = torch.cat([-r[..., rot // 2:], r[..., :rot // 2]], -1)
        return torch.cat([r * cos + turned * sin, rest], -1)

    for l in range(c["num_hidden_layers"]):
        p, n = f"gpt_neox.layers.{l}.", x.shape[0]
        qkv = lin(lnp(x, p + "input_layernorm"), p + "attention.query_key_value")
        qkv = qkv.reshape(n, H, 3 * hd).transpose(0, 1)
        att, z = attend(rope(qkv[..., :hd]), rope(qkv[..., hd:2 * hd]), qkv[..., 2 * hd:], l, True, iv)
        atts.append(att)
        a = lin(z, p + "attention.dense")
        mlp = lambda h: lin(gelu(lin(h, p + "mlp.dense_h_to_4h")), p + "mlp.dense_4h_to_h")  # noqa: E731
        if c["use_parallel_residual"]:
            x = x + a + mlp(lnp(x, p + "post_attention_layernorm"))
        else:
            x = x + a
            x = x + mlp(lnp(x, p + "post_attention_layernorm"))
    return w["embed_out.weight"] @ lnp(x[at], "gpt_neox.final_layer_norm"), atts


def bert_forward(w, x, at, iv):
    lin = lambda t, name: t @ w[name + ".weight"].T + w[name + ".bias"]  # noqa: E731
    gelu = lambda t: 0.5 * t * (1 + torch.erf(t / math.sqrt(2)))  # noqa: E731
    atts, H, eps = [], bert_tiny.H, bert_tiny.EPS
    for l in range(bert_tiny.L):
        p, n = f"encoder.layer.{l}.", x.shape[0]
        q, k, v = (lin(x, p + f"attention.self.{m}").reshape(n, H, -1).transpose(0, 1)
                   for m in ("query", "key", "value"))
        att, z = attend(q, k, v, l, False, iv)
        atts.append(att)
        x = ln(x + lin(z, p + "attention.output.dense"), w[p + "attention.output.LayerNorm.weight"],
               w[p + "attention.output.LayerNorm.bias"], eps)
        x = ln(x + lin(gelu(lin(x, p + "intermediate.dense")), p + "output.dense"),
               w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
    c = "cls.predictions."
    t = ln(gelu(lin(x[at], c + "transform.dense")), w[c + "transform.LayerNorm.weight"],
           w[c + "transform.LayerNorm.bias"], eps)
    return w["embeddings.word_embeddings.weight"] @ t + w[c + "bias"], atts


with tempfile.TemporaryDirectory() as tmp:
    # GPT-2, three layers.
    gpt2 = os.path.join(tmp, "gpt2")
    wg = gpt2_tiny.tiny_folder(gpt2, 11, 3)
    tg = {k: T(v) for k, v in wg.items()}
    m = ref.Gpt2(wg)
    z = attribute(gpt2, "the cat sat on", "--methods", GRADIENT, "--steps", "16")
    if z is not None:
        ids = [int(i) for i in z["token_ids"]]
        compare("gpt2", z, lambda x, at, iv={}: gpt2_forward(tg, x, at, iv), m.embed(ids), 16, 3, gpt2_tiny.H)
    # Interventions and the temperature inside the differentiated run.
    iv = dict(ablate={(0, 1), (2, 0)}, mode="mean", knockouts=[(1, 0, -1, 2), (2, 1, 5, 4)], temperature=1.7)
    z = attribute(gpt2, "the cat sat on", "--methods", GRADIENT, "--steps", "8", "--ablate", "0.1,2.0",
                  "--ablate-mode", "mean", "--knockout", "1.0:*>2,2.1:5>4", "--temperature", "1.7")
    if z is not None:
        ids = [int(i) for i in z["token_ids"]]
        compare("gpt2 mean-ablated, knocked out, tau 1.7", z,
                lambda x, at: gpt2_forward(tg, x, at, iv), m.embed(ids), 8, 3, gpt2_tiny.H)
    z = attribute(gpt2, "the cat sat on", "--methods", GRADIENT, "--steps", "8", "--ablate", "1.0")
    if z is not None:
        ids = [int(i) for i in z["token_ids"]]
        compare("gpt2 zero-ablated 1.0", z, lambda x, at: gpt2_forward(tg, x, at, {"ablate": {(1, 0)}}),
                m.embed(ids), 8, 3, gpt2_tiny.H)
        axg = z["attention_x_gradient"]
        check(np.all(axg[1, 0] == 0) and np.abs(axg[1, 1]).max() > 0,
              "--ablate 1.0: head 1.0's attention_x_gradient is zero, head 1.1's is not")

    # Llama with grouped-query attention and RoPE, Qwen2 with q/k/v biases.
    for kind in ("llama", "qwen2"):
        c = llama_tiny.config(kind, layers=2, heads=4, kv_heads=2)
        folder = os.path.join(tmp, kind)
        w = llama_tiny.tiny_folder(folder, 9, c)
        tw = {k: T(v) for k, v in w.items()}
        z = attribute(folder, "the cat sat on the mat and then", "--methods", GRADIENT, "--steps", "16")
        if z is not None:
            ids = [int(i) for i in z["token_ids"]]
            compare(kind, z, lambda x, at, tw=tw, c=c: llama_forward(tw, c, x, at, {}),
                    ref.Llama(w, c).embed(ids), 16, 2, 4)

    # GPT-NeoX: fused per-head q/k/v, partial rotary positions, parallel and sequential residuals.
    for parallel in (True, False):
        c = gpt_neox_tiny.config(layers=2, parallel=parallel)
        folder = os.path.join(tmp, f"neox{int(parallel)}")
        w = gpt_neox_tiny.tiny_folder(folder, 7, c)
        tw = {k: T(v) for k, v in w.items()}
        z = attribute(folder, "the cat sat on the mat", "--methods", GRADIENT, "--steps", "8")
        if z is not None:
            ids = [int(i) for i in z["token_ids"]]
            compare(f"gpt_neox {'parallel' if parallel else 'sequential'}", z,
                    lambda x, at, tw=tw, c=c: neox_forward(tw, c, x, at, {}),
                    w["gpt_neox.embed_in.weight"].astype(np.float64)[ids], 8, 2, 4)

    # BERT: post-norm, bidirectional, the masked-LM head; P the first [MASK].
    bert = os.path.join(tmp, "bert")
    wb = bert_tiny.write_model(bert, bert_tiny.weights(np.random.default_rng(3)))
    tb = {k: T(v) for k, v in wb.items()}
    z = attribute(bert, "the cat [MASK] on the mat .", "--methods", GRADIENT, "--steps", "16")
    if z is not None:
        ids = [int(i) for i in z["token_ids"]]
        compare("bert", z, lambda x, at: bert_forward(tb, x, at, {}), ref.Bert(wb).embed(ids), 16,
                bert_tiny.L, bert_tiny.H)

    # ig_delta shrinks as the steps grow: as 1/M² for post-norm BERT (no norm sees α·x0 first);
    # slowly and not monotonically for pre-norm GPT-2, whose first LayerNorm jumps near
    # α ≈ √ε/rms(x0) (measured: 4.8, 4.8, 4.3, 2.3, 5.4, 2.6, 0.011 at 2…8192 steps).
    def deltas(folder, text, steps):
        out = []
        for s in steps:
            z = attribute(folder, text, "--methods", "integrated_gradients", "--steps", str(s))
            out.append(abs(float(z["ig_delta"][0])) if z is not None else math.nan)
        print(f"|ig_delta| of {os.path.basename(folder)} at {steps} steps:", ", ".join(f"{d:.2e}" for d in out))
        return out
    d = deltas(bert, "the cat [MASK] on the mat .", (32, 128, 512, 2048))
    check(all(b < a / 4 for a, b in zip(d, d[1:])) and d[-1] < 1e-4,
          f"bert: |ig_delta| shrinks at least 4-fold per 4x steps, below 1e-4 at 2048 ({d})")
    d = deltas(gpt2, "the cat sat on", (2, 8192))
    check(d[1] < 0.05 * d[0], f"gpt2 (pre-norm): |ig_delta| at 8192 steps below 5% of 2 steps' ({d})")

    # Faithfulness and agreement take the gradient methods in: curves against numpy's reruns.
    z = attribute(gpt2, "the cat sat on", "--methods", "saliency,input_x_gradient,integrated_gradients,rollout",
                  "--steps", "8", "--faithfulness", "3")
    if z is not None:
        ids = [int(i) for i in z["token_ids"]]
        at, target = int(z["position"][0]), int(z["target"][0])
        names = [str(s) for s in z["agreement_methods"]]
        check(names == ["attention", "saliency", "input_x_gradient", "integrated_gradients", "rollout"],
              f"agreement_methods {names}")
        check(z["agreement"].shape == (5, 5), f"agreement {z['agreement'].shape}")
        for method in ("saliency", "input_x_gradient", "integrated_gradients"):
            curve = ref.erasure(m, ids, at, target, z[method], 3)
            got = z["faith_" + method]
            check(got.shape == (4,) and worst(got, curve) <= 1e-4,
                  f"faith_{method} within {worst(got, curve):.1e} of numpy's reruns")
    # --steps below 1 is refused.
    r = subprocess.run([BIN, "attribute", "--model", gpt2, "--text", "the cat", "--methods",
                        "integrated_gradients", "--steps", "0", "-o", os.path.join(tmp, "x.npz")],
                       capture_output=True, text=True)
    check(r.returncode != 0, f"--steps 0 refused ({r.stderr.strip()[:120]})")
finish()
PY
