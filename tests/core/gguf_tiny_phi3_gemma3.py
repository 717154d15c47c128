# AttnScope — tiny phi3- and gemma3-architecture GGUF files written as llama.cpp's
# convert_hf_to_gguf.py writes them (Phi3MiniModel: fused attn_qkv and ffn_up holding gate then
# up, Q/K not permuted, longrope's factors as rope_factors_long / _short tensors; Gemma3Model:
# q/k norms, every norm stored as 1 + w, no soft-caps, the window in the metadata), their
# matrices random valid blocks of the given types. The writers of
# gguf_phi3_gemma3_reference_test.py, and of the fuzz seeds (run as a script: see fuzz_seeds).
# GPL-3.0-or-later.
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_tiny as gt  # noqa: E402
import gguf_writer as gw  # noqa: E402


def phi3_config(**extra):
    """A tiny Phi-3 of whole K-type blocks (d 256, head_dim 64, GQA 4/2, room for the pieces)."""
    from decoder_tiny import config
    return config("phi3", **({"hidden": 256, "heads": 4, "kv_heads": 2, "inter": 512, "vocab": 300}
                             | extra))


def gemma3_config(**extra):
    """A tiny Gemma 3 text model with llama.cpp's layer kinds (every sixth layer global), scaled
    by 1/√head_dim as llama.cpp does below 27B."""
    from gemma_tiny import config
    return config("gemma3_text", **({"layers": 7, "hidden": 256, "heads": 4, "kv_heads": 2,
                                     "head_dim": 64, "inter": 512, "vocab": 300,
                                     "query_pre_attn_scalar": 64, "sliding_window_pattern": 6}
                                    | extra))


def _matrices(rng, mats, kinds):
    """(GGUF tensors, Hugging Face float32 weights) of MATS [(hf, gguf, rows, cols, std)]."""
    tensors, hf = [], {}
    for i, (name, gname, rows, cols, target) in enumerate(mats):
        kind = kinds[i % len(kinds)]
        raw, hf[name] = gt.stored_values(rng, kind, rows, cols, target)
        tensors.append((gname, [cols, rows], kind, raw))
    return tensors, hf


def _write(path, tensors, kvs, kvs_edit, tensors_edit):
    if kvs_edit:
        kvs = kvs_edit(kvs)
    if tensors_edit:
        tensors = tensors_edit(tensors)
    open(path, "wb").write(gw.gguf_bytes(tensors, 32, kvs))


def phi3_gguf(path, c, kinds, seed, kvs_edit=None, tensors_edit=None):
    """A phi3-architecture GGUF of config C; returns the Hugging Face weights it stands for."""
    rng = np.random.default_rng(seed)
    d, ff, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    hd = d // c["num_attention_heads"]
    qd, kvd = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd
    mats = [("model.embed_tokens.weight", "token_embd.weight", v, d, 0.6)]
    if not c.get("tie_word_embeddings"):
        mats.append(("lm_head.weight", "output.weight", v, d, 0.4))
    gains = [("model.norm.weight", "output_norm.weight")]
    for l in range(c["num_hidden_layers"]):
        p, b = f"model.layers.{l}.", f"blk.{l}."
        mats += [(p + "self_attn.qkv_proj.weight", b + "attn_qkv.weight", qd + 2 * kvd, d,
                  0.8 / np.sqrt(d)),
                 (p + "self_attn.o_proj.weight", b + "attn_output.weight", d, qd, 0.8 / np.sqrt(qd)),
                 (p + "mlp.gate_up_proj.weight", b + "ffn_up.weight", 2 * ff, d, 0.8 / np.sqrt(d)),
                 (p + "mlp.down_proj.weight", b + "ffn_down.weight", d, ff, 0.8 / np.sqrt(ff))]
        gains += [(p + "input_layernorm.weight", b + "attn_norm.weight"),
                  (p + "post_attention_layernorm.weight", b + "ffn_norm.weight")]
    tensors, hf = _matrices(rng, mats, kinds)
    for name, gname in gains:
        hf[name] = (rng.normal(0, 0.1, d) + 1).astype(np.float32)
        tensors.append((gname, [d], "F32", hf[name].tobytes()))
    a = "phi3."
    kvs = gt.config_kvs(c) + [gt.u32(a + "rope.dimension_count", hd)]
    if c.get("sliding_window"):
        kvs.append(gt.u32(a + "attention.sliding_window", c["sliding_window"]))
    r = c.get("rope_scaling")
    if r:
        import math
        original = c["original_max_position_embeddings"]
        scale = c["max_position_embeddings"] / original
        factor = r.get("attention_factor") or math.sqrt(1 + math.log(scale) / math.log(original))
        kvs += [gt.u32(a + "rope.scaling.original_context_length", original),
                gt.f32v(a + "rope.scaling.attn_factor", factor)]
        for kind in ("long", "short"):
            values = np.array(r[kind + "_factor"], np.float32)
            tensors.append((f"rope_factors_{kind}.weight", [len(values)], "F32", values.tobytes()))
    kvs += gt.spm_tokenizer_kvs(gt.tiny_spm_pieces(v))
    _write(path, tensors, kvs, kvs_edit, tensors_edit)
    return hf


def gemma3_gguf(path, c, kinds, seed, kvs_edit=None, tensors_edit=None):
    """A gemma3-architecture GGUF of config C: no output.weight (tied), every norm, q_norm and
    k_norm too, stored as 1 + w. Returns the Hugging Face weights it stands for (norms as w)."""
    rng = np.random.default_rng(seed)
    d, hd, ff, v = c["hidden_size"], c["head_dim"], c["intermediate_size"], c["vocab_size"]
    H, KV = c["num_attention_heads"], c["num_key_value_heads"]
    mats = [("model.embed_tokens.weight", "token_embd.weight", v, d, 0.3)]
    norms = [("model.norm.weight", "output_norm.weight", d)]
    for l in range(c["num_hidden_layers"]):
        p, b = f"model.layers.{l}.", f"blk.{l}."
        for name, rows, cols in (("self_attn.q_proj", H * hd, d), ("self_attn.k_proj", KV * hd, d),
                                 ("self_attn.v_proj", KV * hd, d), ("self_attn.o_proj", d, H * hd),
                                 ("mlp.gate_proj", ff, d), ("mlp.up_proj", ff, d),
                                 ("mlp.down_proj", d, ff)):
            mats.append((p + name + ".weight", b + gt.BLOCK_NAMES[name] + ".weight", rows, cols,
                         1.6 / np.sqrt(cols)))
        norms += [(p + hf + ".weight", b + g + ".weight", d) for hf, g in gt.GEMMA_NORMS.items()]
        norms += [(p + "self_attn.q_norm.weight", b + "attn_q_norm.weight", hd),
                  (p + "self_attn.k_norm.weight", b + "attn_k_norm.weight", hd)]
    tensors, hf = _matrices(rng, mats, kinds)
    for name, gname, size in norms:
        stored = (rng.normal(0, 0.1, size) + 1).astype(np.float32)  # the converter's w + 1
        tensors.append((gname, [size], "F32", stored.tobytes()))
        hf[name] = stored - np.float32(1)  # exact: Sterbenz
    a = "gemma3."
    kvs = gt.config_kvs(c | {"model_type": "gemma3"})
    kvs.append(gt.u32(a + "attention.sliding_window", c["sliding_window"]))
    if c.get("rope_local_base_freq", 10000.0) != 10000.0:
        kvs.append(gt.f32v(a + "rope.freq_base_swa", c["rope_local_base_freq"]))
    kvs += gt.spm_tokenizer_kvs(gt.tiny_spm_pieces(v))
    _write(path, tensors, kvs, kvs_edit, tensors_edit)
    return hf


def fuzz_seeds(folder):
    """The fuzz corpus's phi3 and gemma3 seeds (tests/core/data/gguf): a tiny longrope Phi-3 and a
    tiny Gemma 3 of F16 matrices, and hostile ones (a fused qkv short of its v rows, longrope
    without its short factors, Gemma 3 without its window)."""
    from decoder_tiny import phi3_longrope
    p = phi3_longrope(phi3_config(hidden=32, inter=40, layers=1))
    g = gemma3_config(layers=2, hidden=32, head_dim=8, inter=32, sliding_window_pattern=2)
    out = lambda name: os.path.join(folder, name)  # noqa: E731
    phi3_gguf(out("tiny_phi3_model.gguf"), p, ["F16"], 1)
    gemma3_gguf(out("tiny_gemma3_model.gguf"), g, ["F16"], 2)
    phi3_gguf(out("hostile_phi3_qkv_rows.gguf"), p, ["F16"], 3, tensors_edit=lambda ts: [
        (n, [d[0], d[1] - 16], k, r[:len(r) - 16 * d[0] * 2]) if n == "blk.0.attn_qkv.weight"
        else (n, d, k, r) for n, d, k, r in ts])
    phi3_gguf(out("hostile_phi3_no_short_factors.gguf"), p, ["F16"], 4,
              tensors_edit=lambda ts: [t for t in ts if t[0] != "rope_factors_short.weight"])
    gemma3_gguf(out("hostile_gemma3_no_window.gguf"), g, ["F16"], 5, kvs_edit=lambda kvs: [
        kv for kv in kvs if not kv.startswith(gw.gstr("gemma3.attention.sliding_window"))])


if __name__ == "__main__":
    fuzz_seeds(sys.argv[1])  # gguf_tiny_phi3_gemma3.py tests/core/data/gguf
