#!/usr/bin/env python3
# AttnScope — GGUF files of the llama, qwen2 and gemma2 architectures (written here as llama.cpp's
# converter writes them: gguf-py's keys and tensor names, llama's Q and K rows permuted, weights
# random valid blocks of Q4_K, Q6_K, Q8_0, Q5_K, Q4_0, Q5_0, Q4_1, Q5_1, F16, BF16 and F32) run
# through the family registry against llama_tiny's numpy forward of the dequantised weights (attention weights to
# 3e-5, logits to 1e-4 relative); the same model as an F32 GGUF and as a Hugging Face folder give
# equal outputs; and hostile files (missing keys, shapes that contradict the metadata, a tensor
# cut short, an architecture no family reads) refused with a message naming the file.
# GPL-3.0-or-later.
#   gguf_reference_test.py RUN_TOOL
import json
import os
import struct
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_tiny as gt  # noqa: E402
import gguf_writer as gw  # noqa: E402
from llama_tiny import reference, tokenizer_json, write_model  # noqa: E402
from model_run import check, finish, refused, run  # noqa: E402

KINDS = ["Q4_K", "Q6_K", "Q8_0", "Q5_K", "Q4_0", "F16", "BF16", "F32"]


def compare(name, path, hf, c, ids, forward=reference):
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
    # The check is worth something only when most rows spread their weight (not one-hot).
    spread = ref_w[:, :, 3:, :].max(-1).mean()
    check(spread < 0.9, f"{name}: the reference's attention is nearly one-hot ({spread:.2f})")
    print(f"{name}: weights max |diff| {err_w:.1e}, logits max rel diff {err_l:.1e}")
    return out


def hostile(tmp, c, hf, name, drop_kv=None, kv_override=None, tensors_edit=None):
    """An F32 GGUF of HF with a metadata key dropped / replaced or its tensors edited."""
    kvs = gt.config_kvs(c) + gt.tiny_tokenizer(c)
    if drop_kv:
        kvs = [kv for kv in kvs if not kv.startswith(gw.gstr(drop_kv))]
    if kv_override:
        key, item = kv_override
        kvs = [kv for kv in kvs if not kv.startswith(gw.gstr(key))] + [item]
    tensors = gt.hf_to_stored(hf, c)
    if tensors_edit:
        tensors = tensors_edit(tensors)
    path = os.path.join(tmp, name)
    open(path, "wb").write(gw.gguf_bytes(tensors, 32, kvs))
    return path


with tempfile.TemporaryDirectory() as tmp:
    ids = [3, 17, 5, 39, 0, 12, 12, 8, 21, 30]
    cases = [
        ("llama GGUF, GQA 4/2, Q/K permuted, untied", gt.tiny_config("llama"), KINDS),
        ("llama GGUF, tied, linear rope ×2, K types only",
         gt.tiny_config("llama", tie_word_embeddings=True,
                        rope_scaling={"type": "linear", "factor": 2.0}), ["Q4_K", "Q6_K", "Q5_K"]),
        ("qwen2 GGUF, q/k/v biases, tied, rope_theta 1e6",
         gt.tiny_config("qwen2", tie_word_embeddings=True, rope_theta=1e6), KINDS[2:] + KINDS[:2]),
        ("qwen2 GGUF, untied, Q8_0 and Q4_0", gt.tiny_config("qwen2"), ["Q8_0", "Q4_0"]),
        # What a Q4_K_M file holds where rows are not whole 256-value blocks (Qwen2.5-0.5B's 896).
        ("llama GGUF, Q5_0, Q4_1, Q5_1", gt.tiny_config("llama"), ["Q5_0", "Q4_1", "Q5_1"]),
    ]
    for i, (name, c, kinds) in enumerate(cases):
        path = os.path.join(tmp, f"m{i}.gguf")
        hf = gt.write_gguf(path, c, kinds, 200 + i)
        out = compare(name, path, hf, c, ids)
        if out:
            n = sum(v.size for v in hf.values())
            check(out["family"] == c["model_type"], f"{name}: family {out['family']}")
            check(out["parameters"] == n, f"{name}: {out['parameters']} parameters, the file holds {n}")
            check(out["dtype"] == kinds[0] or len(kinds) > 1, f"{name}: dtype {out['dtype']}")

    # Permuted Q/K matter: the same file read without undoing the permutation would differ.
    c = gt.tiny_config("llama")
    hf = gt.write_gguf(os.path.join(tmp, "perm.gguf"), c, ["F32"], 5)
    ref_w, _ = reference(hf, c, ids)
    wrong = dict(hf)
    for k in wrong:
        if ".q_proj." in k:
            wrong[k] = gt.permute(wrong[k], 4)
        if ".k_proj." in k:
            wrong[k] = gt.permute(wrong[k], 2)
    bad_w, _ = reference(wrong, c, ids)
    check(np.abs(bad_w - ref_w).max() > 1e-2, "the permutation changes nothing: a useless test")

    # One model, two files: an F32 GGUF and a Hugging Face folder give the same outputs.
    for arch in ("llama", "qwen2"):
        c = gt.tiny_config(arch)
        hf = gt.model_tensors(np.random.default_rng(9), c, ["F32"])[1]
        g = os.path.join(tmp, f"same-{arch}.gguf")
        open(g, "wb").write(gw.gguf_bytes(gt.hf_to_stored(hf, c), 32,
                                          gt.config_kvs(c) + gt.tiny_tokenizer(c)))
        folder = os.path.join(tmp, f"same-{arch}")
        write_model(folder, hf, c, "F32")
        json.dump(tokenizer_json(c["vocab_size"]), open(os.path.join(folder, "tokenizer.json"), "w"))
        a, b = run(g, ids), run(folder, ids)
        if a[0] == 0 and b[0] == 0:
            dw = np.abs(np.array(a[1]["weights"]) - np.array(b[1]["weights"])).max()
            dl = np.abs(np.array(a[1]["logits"]) - np.array(b[1]["logits"])).max()
            check(dw <= 1e-6 and dl <= 1e-5 * np.abs(np.array(b[1]["logits"])).max(),
                  f"{arch}: the GGUF and the folder differ: weights {dw:.1e}, logits {dl:.1e}")
            print(f"{arch}: F32 GGUF = Hugging Face folder (weights {dw:.1e}, logits {dl:.1e})")
        else:
            check(False, f"{arch}: GGUF {a} / folder {b}")

    # Hostile files.
    c = gt.tiny_config("llama")
    hf = gt.model_tensors(np.random.default_rng(3), c, ["F32"])[1]
    refused("missing block_count", hostile(tmp, c, hf, "h1.gguf", drop_kv="llama.block_count"), ids,
            "h1.gguf", "llama.block_count", "missing")
    refused("missing rms epsilon",
            hostile(tmp, c, hf, "h2.gguf", drop_kv="llama.attention.layer_norm_rms_epsilon"), ids,
            "h2.gguf", "layer_norm_rms_epsilon")
    refused("embedding_length contradicts the tensors",
            hostile(tmp, c, hf, "h3.gguf", kv_override=("llama.embedding_length",
                                                        gt.u32("llama.embedding_length", 128))),
            ids, "h3.gguf", "token_embd.weight", "shape")
    refused("head_count_kv not dividing head_count",
            hostile(tmp, c, hf, "h4.gguf", kv_override=("llama.attention.head_count_kv",
                                                        gt.u32("llama.attention.head_count_kv", 3))),
            ids, "h4.gguf", "head_count_kv", "does not divide")
    refused("block_count past the tensors",
            hostile(tmp, c, hf, "h5.gguf", kv_override=("llama.block_count",
                                                        gt.u32("llama.block_count", 3))),
            ids, "h5.gguf", "blk.2.attn_norm.weight", "model.layers.2", "missing")
    refused("a tensor missing",
            hostile(tmp, c, hf, "h6.gguf",
                    tensors_edit=lambda ts: [t for t in ts if t[0] != "blk.1.ffn_up.weight"]),
            ids, "h6.gguf", "blk.1.ffn_up.weight", "mlp.up_proj", "missing")

    # The last tensor's data cut: its extent runs past the end of the file.
    path = hostile(tmp, c, hf, "h7.gguf")
    data = open(path, "rb").read()
    open(path, "wb").write(data[:-100])
    refused("a tensor cut short", path, ids, "h7.gguf", "runs past the end")
    refused("an architecture no family reads",
            hostile(tmp, c, hf, "h8.gguf", kv_override=("general.architecture",
                                                        gt.string("general.architecture", "falcon"))),
            ids, "h8.gguf", "falcon", "not supported", "phi3, gemma2, gemma3")
    refused("Gemma 1, a family AttnScope does not run",
            hostile(tmp, c, hf, "h8b.gguf", kv_override=("general.architecture",
                                                         gt.string("general.architecture", "gemma"))),
            ids, "h8b.gguf", "\"gemma\" is not supported yet")
    refused("rope scaling yarn",
            hostile(tmp, c, hf, "h9.gguf", kv_override=("llama.rope.scaling.type",
                                                        gt.string("llama.rope.scaling.type", "yarn"))),
            ids, "h9.gguf", "yarn")
    refused("an unknown pre-tokenizer",
            hostile(tmp, gt.tiny_config("qwen2"), gt.model_tensors(np.random.default_rng(3),
                                                                  gt.tiny_config("qwen2"), ["F32"])[1],
                    "h10.gguf", kv_override=("tokenizer.ggml.pre",
                                             gt.string("tokenizer.ggml.pre", "deepseek-coder"))),
            ids, "h10.gguf", "deepseek-coder")

    def infinite_scale(ts):  # blk.0.ffn_up as Q8_0 whose third block's scale is +inf
        raw = bytearray(gw.random_blocks(np.random.default_rng(1), "Q8_0", 512 * 256, 0.1))
        raw[2 * 34:2 * 34 + 2] = struct.pack("<H", 0x7C00)
        return [(n, d, "Q8_0", bytes(raw)) if n == "blk.0.ffn_up.weight" else (n, d, k, r)
                for n, d, k, r in ts]

    refused("a non-finite Q8_0 scale", hostile(tmp, c, hf, "h11.gguf", tensors_edit=infinite_scale),
            ids, "h11.gguf", "blk.0.ffn_up.weight", "non-finite scale in block 2")

    # gemma2: norms stored as 1 + w, soft-caps and the window from the metadata, tied, against
    # gemma_tiny's numpy forward of the dequantised weights.
    import gemma_tiny
    for i, (name, c, kinds) in enumerate([
            ("gemma2 GGUF, soft-caps 4 and 3, window 4, every type", gt.gemma2_config(), KINDS),
            ("gemma2 GGUF, multi-query, K types", gt.gemma2_config(kv_heads=1),
             ["Q6_K", "Q5_K", "Q4_K"])]):
        path = os.path.join(tmp, f"gemma{i}.gguf")
        hf = gt.gemma2_gguf(path, c, kinds, 400 + i)
        out = compare(name, path, hf, c, ids, gemma_tiny.reference)
        if out:
            n = sum(v.size for v in hf.values())
            check(out["family"] == "gemma2" and out["softcap"], f"{name}: {out['family']}")
            check(out["parameters"] == n, f"{name}: {out['parameters']} parameters, not {n}")
    # The same Gemma 2 as an F32 GGUF (norms 1 + w) and as a Hugging Face folder (norms w).
    c = gt.gemma2_config()
    g = os.path.join(tmp, "same-gemma2.gguf")
    hf = gt.gemma2_gguf(g, c, ["F32"], 9)
    folder = os.path.join(tmp, "same-gemma2")
    write_model(folder, hf, c, "F32")
    json.dump(tokenizer_json(c["vocab_size"]), open(os.path.join(folder, "tokenizer.json"), "w"))
    a, b = run(g, ids), run(folder, ids)
    if a[0] == 0 and b[0] == 0:
        dw = np.abs(np.array(a[1]["weights"]) - np.array(b[1]["weights"])).max()
        dl = np.abs(np.array(a[1]["logits"]) - np.array(b[1]["logits"])).max()
        check(dw <= 1e-6 and dl <= 1e-5 * np.abs(np.array(b[1]["logits"])).max(),
              f"gemma2: the GGUF and the folder differ: weights {dw:.1e}, logits {dl:.1e}")
        print(f"gemma2: F32 GGUF = Hugging Face folder (weights {dw:.1e}, logits {dl:.1e})")
    else:
        check(False, f"gemma2: GGUF {a} / folder {b}")
    drop = lambda key: lambda kvs: [kv for kv in kvs if not kv.startswith(gw.gstr(key))]  # noqa
    path = os.path.join(tmp, "h12.gguf")
    gt.gemma2_gguf(path, c, ["F32"], 9, drop("gemma2.attention.layer_norm_rms_epsilon"))
    refused("gemma2 without its rms epsilon", path, ids, "h12.gguf", "layer_norm_rms_epsilon")
    path = os.path.join(tmp, "h13.gguf")
    gt.gemma2_gguf(path, c, ["F32"], 9, lambda kvs: drop("gemma2.attn_logit_softcapping")(kvs) + [
        gt.f32v("gemma2.attn_logit_softcapping", float("nan"))])
    refused("gemma2 with a NaN soft-cap", path, ids, "h13.gguf", "attn_logit_softcapping")

finish()
