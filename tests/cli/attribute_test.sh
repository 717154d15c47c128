#!/usr/bin/env bash
# AttnScope — `attnscope attribute` on tiny random GPT-2, Llama (grouped-query attention), Qwen2
# and BERT folders against the independent numpy code of tests/core/attribution_numpy.py:
# norm_based, value_zeroing, alti (and its identity: the terms plus the constant are the block's
# output), alti_rollout, rollout, attention_flow (networkx's maximum flow), the erasure curves
# (numpy reruns) and the agreement (Kendall's τ-b pair by pair); interventions and controls
# combine with it; the gradient methods are in by default (checked against autograd by
# attribute_gradients_test.sh; here their erasure curves and agreement). GPL-3.0-or-later.
#   attribute_test.sh ATTNSCOPE FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python_checks <<'PY'
import json, os, subprocess, tempfile
import numpy as np
from cli_checks import BIN, check, finish
import attribution_numpy as ref
import bert_tiny, gpt2_tiny, llama_tiny


def worst(got, want):
    """The largest difference relative to the largest magnitude of WANT (at least 1e-12)."""
    return float(np.abs(np.asarray(got, np.float64) - want).max() / max(np.abs(want).max(), 1e-12))


def attribute(model, text, *args):
    out = os.path.join(tmp, "attr.npz")
    r = subprocess.run([BIN, "attribute", "--model", model, "--text", text, *args, "-o", out],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"attribute {os.path.basename(model)} {' '.join(args)} exits 0 "
                             f"({r.stderr.strip()[:300]})")
    return (np.load(out), r.stderr) if r.returncode == 0 else (None, r.stderr)


def compare(name, m, z, faith, tokens=None):
    """Every array of Z against numpy on the model M (TOKENS: the tokenizer's ids, the argmax's
    range: rows past it are padding)."""
    ids = [int(t) for t in z["token_ids"]]
    at, target = int(z["position"][0]), int(z["target"][0])
    xs, parts, logits = ref.forward(m, ids, at)
    n, L, H = len(ids), m.layers, m.heads
    check(target == int(np.argmax(logits[:tokens])) and abs(float(z["logit"][0]) - logits[target]) <= 1e-4 * max(1, abs(logits[target])),
          f"{name}: target {target} is numpy's argmax, logit {float(z['logit'][0]):.5f} vs {logits[target]:.5f}")
    nb = ref.norm_based(m, parts)
    check(z["norm_based"].shape == (L, H, n, n) and worst(z["norm_based"], nb) <= 1e-4,
          f"{name}: norm_based {z['norm_based'].shape} within {worst(z['norm_based'], nb):.1e}")
    vz = ref.value_zeroing(m, xs, parts)
    check(z["value_zeroing"].shape == (L, n, n) and np.abs(z["value_zeroing"] - vz).max() <= 5e-5,
          f"{name}: value_zeroing within {np.abs(z['value_zeroing'] - vz).max():.1e} (1 − cos in float32)")
    rows = z["value_zeroing"].sum(-1)
    check(np.all((np.abs(rows - 1) <= 1e-5) | (rows == 0)), f"{name}: value_zeroing rows sum to 1 or 0")
    al, identity = ref.alti(m, xs, parts)
    check(identity <= 1e-9, f"{name}: numpy's ALTI terms plus the constant are the block's output ({identity:.1e})")
    check(z["alti"].shape == (L, n, n) and np.abs(z["alti"] - al).max() <= 1e-4,
          f"{name}: alti within {np.abs(z['alti'] - al).max():.1e}")
    rows = z["alti"].sum(-1)
    check(np.all((np.abs(rows - 1) <= 1e-5) | (rows == 0)) and (rows > 0).mean() > 0.5,
          f"{name}: alti rows sum to 1 ({(rows == 0).sum()} all-zero rows)")
    ar = al[0]
    for l in range(1, L):
        ar = al[l] @ ar
    check(np.abs(z["alti_rollout"] - ar).max() <= 1e-4,
          f"{name}: alti_rollout within {np.abs(z['alti_rollout'] - ar).max():.1e}")
    ro = ref.rollout(parts)
    check(np.abs(z["rollout"] - ro).max() <= 1e-5 and np.abs(z["rollout"].sum(1) - 1).max() <= 1e-5,
          f"{name}: rollout within {np.abs(z['rollout'] - ro).max():.1e}, rows sum to 1")
    fl = ref.attention_flow(parts)
    check(np.abs(z["attention_flow"] - fl).max() <= 1e-5,
          f"{name}: attention_flow within {np.abs(z['attention_flow'] - fl).max():.1e} of networkx")
    check(z["attention_flow"].min() >= 0 and z["attention_flow"].max() <= 1 + 1e-6,
          f"{name}: 0 ≤ flow ≤ 1 (rows of Â are stochastic)")
    if m.causal:
        check(np.all(np.triu(z["attention_flow"], 1) == 0), f"{name}: no flow from a later token")
    if faith is None:
        return
    scores = {"attention": np.mean([r for r in parts[-1]["att"]], axis=0)[at], "rollout": ro[at],
              "attention_flow": fl[at], "alti_rollout": ar[at]}
    gradient = ["saliency", "input_x_gradient", "integrated_gradients"]
    scores |= {g: z[g] for g in gradient}  # the arrays themselves: autograd checks them elsewhere
    names = [str(s) for s in z["agreement_methods"]]
    check(names == ["attention", *gradient, "alti_rollout", "attention_flow", "rollout"],
          f"{name}: agreement_methods {names}")
    for method in names:
        curve = ref.erasure(m, ids, at, target, scores[method], faith)
        got = z["faith_" + method]
        check(got.shape == (faith + 1,) and worst(got, curve) <= 1e-4,
              f"{name}: faith_{method} within {worst(got, curve):.1e} of numpy's reruns")
    cand = [p for p in range(at if m.causal else n) if p != at]
    tau = np.array([[ref.kendall_tau_b([scores[a][p] for p in cand], [scores[b][p] for p in cand])
                     for b in names] for a in names])
    check(z["agreement"].shape == (7, 7) and np.allclose(z["agreement"], tau, atol=1e-6, equal_nan=True),
          f"{name}: agreement is Kendall's tau-b pair by pair")


with tempfile.TemporaryDirectory() as tmp:
    rng = np.random.default_rng(5)
    gpt2 = os.path.join(tmp, "gpt2")
    wg = gpt2_tiny.tiny_folder(gpt2, 11, 3)
    z, err = attribute(gpt2, "the cat sat", "--faithfulness", "3")
    check(z is not None and all(m in z.files for m in ("saliency", "input_x_gradient", "integrated_gradients",
                                                        "ig_delta", "attention_x_gradient")),
          f"all: the gradient methods are in ({sorted(z.files) if z is not None else err.strip()})")
    if z is not None:
        compare("gpt2", ref.Gpt2(wg), z, 3)
    for kind, extra in [("llama", {}), ("qwen2", {})]:
        c = llama_tiny.config(kind, layers=2, heads=4, kv_heads=2, **extra)
        folder = os.path.join(tmp, kind)
        w = llama_tiny.tiny_folder(folder, 9, c)
        z, _ = attribute(folder, "the cat sat on the mat and then", "--faithfulness", "4")
        if z is not None:
            compare(kind, ref.Llama(w, c), z, 4)
    bert = os.path.join(tmp, "bert")
    wb = bert_tiny.write_model(bert, bert_tiny.weights(np.random.default_rng(3)))
    z, _ = attribute(bert, "the cat [MASK] on the mat .", "--faithfulness", "3")
    if z is not None:
        ids = [int(t) for t in z["token_ids"]]
        check(int(z["position"][0]) == ids.index(bert_tiny.MASK), f"bert: P is the first [MASK] ({int(z['position'][0])})")
        compare("bert", ref.Bert(wb), z, 3, len(bert_tiny.WORDS))

    # Interventions inside: knockouts and a mean ablation in every method and rerun.
    iv = dict(ablate={(0, 1), (2, 0)}, mode="mean", knockouts=[(1, 0, -1, 2), (2, 1, 7, 6)])
    z, _ = attribute(gpt2, "the cat sat", "--faithfulness", "3", "--ablate", "0.1,2.0",
                     "--ablate-mode", "mean", "--knockout", "1.0:*>2,2.1:7>6")
    if z is not None:
        compare("gpt2 with interventions", ref.Gpt2(wg, **iv), z, 3)
    z, _ = attribute(gpt2, "the cat sat", "--ablate", "1.1")
    if z is not None:
        compare("gpt2 zero-ablated 1.1", ref.Gpt2(wg, ablate={(1, 1)}), z, None)

    # One method, a chosen position and target; the others absent.
    z, _ = attribute(gpt2, "the cat sat", "--methods", "rollout,norm_based", "--position", "2", "--target", "7")
    if z is not None:
        check(sorted(z.files) == ["logit", "norm_based", "position", "rollout", "target", "token_ids"],
              f"--methods rollout,norm_based writes only those ({sorted(z.files)})")
        check(int(z["position"][0]) == 2 and int(z["target"][0]) == 7, "--position 2 --target 7 kept")
        _, _, lg = ref.forward(ref.Gpt2(wg), [int(t) for t in z["token_ids"]], 2)
        check(abs(float(z["logit"][0]) - lg[7]) <= 1e-4, f"logit of token 7 at 2: {float(z['logit'][0]):.5f} vs {lg[7]:.5f}")
    # An intervention changes what is explained: a zero-ablated head contributes nothing.
    z, _ = attribute(gpt2, "the cat sat", "--methods", "norm_based", "--ablate", "1.0")
    if z is not None:
        check(np.all(z["norm_based"][1, 0] == 0) and np.abs(z["norm_based"][1, 1]).max() > 0,
              "--ablate 1.0: head 1.0's norm_based is zero, head 1.1's is not")
    z2, _ = attribute(gpt2, "the cat sat", "--methods", "rollout", "--temperature", "3")
    z1, _ = attribute(gpt2, "the cat sat", "--methods", "rollout")
    if z1 is not None and z2 is not None:
        check(np.abs(z1["rollout"] - z2["rollout"]).max() > 1e-3, "--temperature 3 changes the rollout")

    # Python: attnscope.attribute runs the command and returns its arrays.
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(ref.__file__)))), "python"))
    os.environ["ATTNSCOPE_BIN"] = BIN
    import attnscope
    got = attnscope.attribute(gpt2, "the cat sat", methods=["rollout", "alti"], ablate="1.0", faithfulness=2)
    z, _ = attribute(gpt2, "the cat sat", "--methods", "rollout,alti", "--ablate", "1.0", "--faithfulness", "2")
    if z is not None:
        same = sorted(got) == sorted(z.files) and all(np.array_equal(got[k], z[k]) for k in z.files)
        check(same, f"attnscope.attribute returns the command's arrays ({sorted(got)})")
    got = attnscope.attribute(gpt2, "the cat sat", methods="saliency,attention_x_gradient", steps=4)
    z, _ = attribute(gpt2, "the cat sat", "--methods", "saliency,attention_x_gradient", "--steps", "4")
    if z is not None:
        same = sorted(got) == sorted(z.files) and all(np.array_equal(got[k], z[k]) for k in z.files)
        check(same and got["attention_x_gradient"].shape == (3, 2, len(got["token_ids"]), len(got["token_ids"])),
              f"attnscope.attribute brings the gradient arrays ({sorted(got)})")

    def refused(needle, *args):
        out = os.path.join(tmp, "refused.npz")
        r = subprocess.run([BIN, "attribute", *args, "-o", out], capture_output=True, text=True)
        check(r.returncode == 1 and needle in r.stderr and not os.path.exists(out),
              f"attribute {' '.join(args)[:60]}: exit 1 naming '{needle}' ({r.returncode}: {r.stderr.strip()[:200]})")

    run_args = ["--model", gpt2, "--text", "the cat sat"]
    refused("'lime' is not an attribution method", *run_args, "--methods", "lime")
    refused("position 40 is outside", *run_args, "--position", "40")
    refused("outside the vocabulary", *run_args, "--target", "9999")
    refused("attribute needs --model", "--text", "the cat")
    refused("--view does not apply to attribute", *run_args, "--view", "model")
    r = subprocess.run([BIN, "compute", *run_args, "--faithfulness", "2", "-o", os.path.join(tmp, "c.npz")],
                       capture_output=True, text=True)
    check(r.returncode == 1 and "--faithfulness belongs to attribute" in r.stderr,
          f"compute --faithfulness refused ({r.stderr.strip()})")
finish()
PY
