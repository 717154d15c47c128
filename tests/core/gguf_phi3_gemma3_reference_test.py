#!/usr/bin/env python3
# AttnScope — GGUF files of the phi3 and gemma3 architectures, written here as llama.cpp's
# converter writes them (gguf_tiny_phi3_gemma3.py: gguf-py's keys and tensor names, Phi-3's fused
# attn_qkv and gate+up ffn_up unpermuted with longrope's factor tensors, Gemma 3's q/k norms and
# every norm stored as 1 + w), weights random valid blocks of every type, run through the family
# registry against the families' independent numpy forwards (decoder_tiny for Phi-3, gemma_tiny
# for Gemma 3) of the dequantised weights: attention weights to 3e-5, logits to 1e-4 relative.
# The same model as an F32 GGUF and as a Hugging Face folder give equal outputs; malformed files
# (a fused qkv of the wrong row count, a rope factor tensor missing or short, keys missing) are
# refused with a message naming the file. GPL-3.0-or-later.
#   gguf_phi3_gemma3_reference_test.py RUN_TOOL phi3|gemma3   (one architecture per run)
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decoder_tiny  # noqa: E402
import gemma_tiny  # noqa: E402
import gguf_tiny as gt  # noqa: E402
import gguf_writer as gw  # noqa: E402
from gguf_tiny_phi3_gemma3 import gemma3_config, gemma3_gguf, phi3_config, phi3_gguf  # noqa: E402
from llama_tiny import tokenizer_json, write_model  # noqa: E402
from model_run import check, finish, refused, run  # noqa: E402

KINDS = ["Q4_K", "Q6_K", "Q8_0", "Q5_K", "Q4_0", "F16", "BF16", "F32"]
LONG = [3, 17, 5, 39, 0, 12, 12, 8, 21, 30]  # 10 ids: past phi3_longrope's original 8
SHORT = LONG[:6]


def phi3_forward(hf, c, ids):
    return decoder_tiny.reference(hf, c, ids)[:2]


def compare(name, path, hf, c, ids, forward):
    """The run of PATH against numpy's FORWARD of HF (weights 3e-5, logits 1e-4 relative)."""
    code, out = run(path, ids)
    if code != 0:
        check(False, f"{name}: the run failed: {out}")
        return None
    ref_w, ref_l = forward(hf, c, ids)
    got_w = np.array(out["weights"]).reshape(ref_w.shape)
    got_l = np.array(out["logits"])
    err_w = np.abs(got_w - ref_w).max()
    err_l = np.abs(got_l - ref_l).max() / np.abs(ref_l).max()
    check(err_w <= 3e-5, f"{name}: attention weights differ by {err_w:.2e} (> 3e-5)")
    check(err_l <= 1e-4, f"{name}: logits differ by {err_l:.2e} relative (> 1e-4)")
    spread = ref_w[:, :, 3:, :].max(-1).mean()
    check(spread < 0.9, f"{name}: the reference's attention is nearly one-hot ({spread:.2f})")
    n = sum(x.size for x in hf.values())
    check(out["parameters"] == n, f"{name}: {out['parameters']} parameters, the file holds {n}")
    print(f"{name}: weights max |diff| {err_w:.1e}, logits max rel diff {err_l:.1e}")
    return out


def same_as_folder(name, tmp, gguf, hf, c, ids):
    """An F32 GGUF and the Hugging Face folder of the same weights give equal outputs."""
    folder = os.path.join(tmp, name + "-folder")
    write_model(folder, hf, c, "F32")
    json.dump(tokenizer_json(c["vocab_size"]), open(os.path.join(folder, "tokenizer.json"), "w"))
    a, b = run(gguf, ids), run(folder, ids)
    if a[0] != 0 or b[0] != 0:
        check(False, f"{name}: GGUF {a} / folder {b}")
        return
    dw = np.abs(np.array(a[1]["weights"]) - np.array(b[1]["weights"])).max()
    dl = np.abs(np.array(a[1]["logits"]) - np.array(b[1]["logits"])).max()
    check(dw <= 1e-6 and dl <= 1e-5 * np.abs(np.array(b[1]["logits"])).max(),
          f"{name}: the GGUF and the folder differ: weights {dw:.1e}, logits {dl:.1e}")
    print(f"{name}: F32 GGUF = Hugging Face folder (weights {dw:.1e}, logits {dl:.1e})")


def drop(*keys):
    return lambda kvs: [kv for kv in kvs if not any(kv.startswith(gw.gstr(k)) for k in keys)]


def without(*names):
    return lambda ts: [t for t in ts if t[0] not in names]


ARCH = sys.argv[2]


def phi3_part(tmp):
    longrope = decoder_tiny.phi3_longrope
    phi3_cases = [
        ("phi3 GGUF, GQA 4/2, default rope, every type", phi3_config(), KINDS, LONG),
        ("phi3 GGUF, longrope past the original context (long factors)",
         longrope(phi3_config()), ["Q6_K", "Q4_K", "Q8_0"], LONG),
        ("phi3 GGUF, longrope within the original context (short factors)",
         longrope(phi3_config()), ["Q5_K", "F16"], SHORT),
        ("phi3 GGUF, tied, window 4, multi-head, attention factor 1.3",
         longrope(phi3_config(kv_heads=4, sliding_window=4, tie_word_embeddings=True),
                  attention_factor=1.3), ["BF16", "Q4_0"], LONG),
    ]
    for i, (name, c, kinds, ids) in enumerate(phi3_cases):
        path = os.path.join(tmp, f"phi3-{i}.gguf")
        hf = phi3_gguf(path, c, kinds, 500 + i)
        out = compare(name, path, hf, c, ids, phi3_forward)
        if out:
            check(out["family"] == "phi3", f"{name}: family {out['family']}")
    # The long factors matter: the long run's first 6 rows differ from the short run.
    c = longrope(phi3_config())
    hf = phi3_gguf(os.path.join(tmp, "phi3-factors.gguf"), c, ["F32"], 7)
    a = phi3_forward(hf, c, LONG)[0][:, :, :6, :6]
    check(np.abs(a - phi3_forward(hf, c, SHORT)[0]).max() > 1e-3,
          "longrope: the long and short factors change nothing: a useless test")
    g = os.path.join(tmp, "same-phi3.gguf")
    same_as_folder("phi3", tmp, g, phi3_gguf(g, c, ["F32"], 9), c, LONG)
    phi3_malformed(tmp)


def gemma3_part(tmp):
    gemma3_cases = [
        ("gemma3 GGUF, 7 layers (5 and 6 kinds), window 4, every type", gemma3_config(), KINDS),
        ("gemma3 GGUF, multi-query, linear rope ×4 on the global layer, local base 20000",
         gemma3_config(kv_heads=1, rope_scaling={"rope_type": "linear", "factor": 4.0},
                       rope_local_base_freq=20000.0), ["Q6_K", "Q5_K", "Q4_K"]),
    ]
    for i, (name, c, kinds) in enumerate(gemma3_cases):
        path = os.path.join(tmp, f"gemma3-{i}.gguf")
        hf = gemma3_gguf(path, c, kinds, 600 + i)
        out = compare(name, path, hf, c, LONG, gemma_tiny.reference)
        if out:
            check(out["family"] == "gemma3_text", f"{name}: family {out['family']}")
    # The layer kinds matter: with every layer global the weights would differ.
    c = gemma3_config()
    hf = gemma3_gguf(os.path.join(tmp, "gemma3-kinds.gguf"), c, ["F32"], 8)
    all_global = gemma_tiny.reference(hf, c | {"sliding_window_pattern": 1}, LONG)[0]
    check(np.abs(all_global - gemma_tiny.reference(hf, c, LONG)[0]).max() > 1e-3,
          "gemma3: the windows change nothing: a useless test")
    g = os.path.join(tmp, "same-gemma3.gguf")
    c = gemma3_config(rope_local_base_freq=20000.0)
    same_as_folder("gemma3", tmp, g, gemma3_gguf(g, c, ["F32"], 10), c, LONG)
    gemma3_malformed(tmp)


def phi3_malformed(tmp):
    c, lc = phi3_config(), decoder_tiny.phi3_longrope(phi3_config())
    path = os.path.join(tmp, "p1.gguf")
    phi3_gguf(path, c, ["F32"], 1, tensors_edit=lambda ts: [
        (n, [d[0], d[1] - 64], k, r[:len(r) - 64 * d[0] * 4]) if n == "blk.1.attn_qkv.weight"
        else (n, d, k, r) for n, d, k, r in ts])
    refused("phi3 attn_qkv of the wrong row count", path, LONG, "p1.gguf", "blk.1.attn_qkv.weight",
            "512")
    path = os.path.join(tmp, "p2.gguf")
    phi3_gguf(path, lc, ["F32"], 1, tensors_edit=without("rope_factors_short.weight"))
    refused("phi3 longrope without its short factors", path, LONG, "p2.gguf",
            "rope_factors_short.weight", "missing")
    path = os.path.join(tmp, "p3.gguf")
    phi3_gguf(path, lc, ["F32"], 1, tensors_edit=lambda ts: [
        (n, [d[0] - 1], k, r[:-4]) if n == "rope_factors_long.weight" else (n, d, k, r)
        for n, d, k, r in ts])
    refused("phi3 long factors one short", path, LONG, "p3.gguf", "rope_factors_long.weight",
            "expected head_dim / 2 = 32")
    path = os.path.join(tmp, "p4.gguf")
    phi3_gguf(path, lc, ["F32"], 1, kvs_edit=drop("phi3.rope.scaling.original_context_length"))
    refused("phi3 longrope without its original context", path, LONG, "p4.gguf",
            "phi3.rope.scaling.original_context_length", "missing")
    path = os.path.join(tmp, "p5.gguf")
    phi3_gguf(path, c, ["F32"], 1, tensors_edit=without("blk.0.ffn_up.weight"))
    refused("phi3 without its fused gate/up", path, LONG, "p5.gguf", "blk.0.ffn_up.weight",
            "mlp.gate_up_proj", "missing")
    path = os.path.join(tmp, "p6.gguf")
    phi3_gguf(path, c, ["F32"], 1, kvs_edit=lambda kvs: kvs + [
        gt.string("phi3.rope.scaling.type", "yarn")])
    refused("phi3 rope scaling yarn", path, LONG, "p6.gguf", "yarn", "phi3")
    path = os.path.join(tmp, "p7.gguf")
    phi3_gguf(path, c, ["F32"], 1, kvs_edit=lambda kvs: drop("phi3.rope.dimension_count")(kvs) + [
        gt.u32("phi3.rope.dimension_count", 48)])
    refused("phi3 partial rotary", path, LONG, "p7.gguf", "rope.dimension_count", "partial")


def gemma3_malformed(tmp):
    c = gemma3_config()
    path = os.path.join(tmp, "g1.gguf")
    gemma3_gguf(path, c, ["F32"], 1, kvs_edit=drop("gemma3.attention.sliding_window"))
    refused("gemma3 without its window", path, LONG, "g1.gguf", "gemma3.attention.sliding_window",
            "missing")
    path = os.path.join(tmp, "g2.gguf")
    gemma3_gguf(path, c, ["F32"], 1, tensors_edit=without("blk.2.attn_k_norm.weight"))
    refused("gemma3 without a k norm", path, LONG, "g2.gguf", "blk.2.attn_k_norm.weight",
            "missing")
    path = os.path.join(tmp, "g3.gguf")
    gemma3_gguf(path, c, ["F32"], 1, kvs_edit=lambda kvs: kvs + [
        gt.string("gemma3.rope.scaling.type", "yarn")])
    refused("gemma3 rope scaling yarn", path, LONG, "g3.gguf", "yarn", "gemma3")
    path = os.path.join(tmp, "g4.gguf")
    gemma3_gguf(path, c, ["F32"], 1, kvs_edit=lambda kvs: kvs + [
        gt.f32v("gemma3.rope.freq_base_swa", float("nan"))])
    refused("gemma3 NaN local rope base", path, LONG, "g4.gguf", "gemma3.rope.freq_base_swa")


with tempfile.TemporaryDirectory() as tmp_dir:
    {"phi3": phi3_part, "gemma3": gemma3_part}[ARCH](tmp_dir)
finish()
