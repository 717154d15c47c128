# AttnScope — tiny llama- and qwen2-architecture GGUF files written as llama.cpp's converter
# writes them (metadata keys of gguf-py, tensor names token_embd / blk.N.* / output_norm / output,
# llama's Q and K rows permuted for interleaved rotary), their weights random valid blocks of
# several types; and tokenizer.json files turned into GGUF tokenizer metadata. The independent
# reference of gguf_reference_test.py. GPL-3.0-or-later.
#   gguf_tiny.py tokenizer TOKENIZER_JSON OUT.gguf   a GGUF holding only the tokenizer of a real
#       tokenizer.json (byte-level BPE: tokenizer.ggml.model gpt2; byte-fallback BPE, as
#       SentencePiece models convert: llama, with scores)
#   gguf_tiny.py OUT.gguf [ARCH] [--kind Q4_K]   a whole tiny model of ARCH (llama, gemma2: a
#       SentencePiece tokenizer; qwen2: byte-level BPE), its matrices of KIND (the app's tests)
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_writer as gw  # noqa: E402
from llama_tiny import head_dim  # noqa: E402

# llama.cpp's token types.
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, BYTE = 1, 2, 3, 4, 6
# Hugging Face's names of gguf-py's block tensors.
BLOCK_NAMES = {"input_layernorm": "attn_norm", "post_attention_layernorm": "ffn_norm",
               "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k",
               "self_attn.v_proj": "attn_v", "self_attn.o_proj": "attn_output",
               "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down"}


def u32(key, v):
    return gw.kv(key, 4, struct.pack("<I", v))


def f32v(key, v):
    return gw.kv(key, 6, struct.pack("<f", v))


def string(key, v):
    return gw.kv(key, 8, gw.gstr(v))


def boolean(key, v):
    return gw.kv(key, 7, struct.pack("<B", 1 if v else 0))


def strings(key, items):
    return gw.kv(key, 9, struct.pack("<IQ", 8, len(items)) + b"".join(gw.gstr(s) for s in items))


def int32s(key, items):
    return gw.kv(key, 9, struct.pack("<IQ", 5, len(items)) + struct.pack(f"<{len(items)}i", *items))


def float32s(key, items):
    return gw.kv(key, 9, struct.pack("<IQ", 6, len(items)) + struct.pack(f"<{len(items)}f", *items))


def gguf_name(hf):
    """model.layers.3.mlp.up_proj.weight → blk.3.ffn_up.weight (convert_hf_to_gguf's map)."""
    stem, suffix = hf.rsplit(".", 1)
    if stem == "model.embed_tokens":
        return "token_embd." + suffix
    if stem == "model.norm":
        return "output_norm." + suffix
    if stem == "lm_head":
        return "output." + suffix
    _, _, layer, rest = stem.split(".", 3)
    return f"blk.{layer}.{BLOCK_NAMES[rest]}.{suffix}"


def permute(w, n_head):
    """convert_hf_to_gguf.py's LlamaModel.permute: rows per head [2, hd/2] → [hd/2, 2]."""
    return (w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def unpermute(w, n_head):
    """permute's inverse: the stored rows back in Hugging Face's order."""
    return (w.reshape(n_head, w.shape[0] // n_head // 2, 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def config_kvs(c):
    """The model metadata llama.cpp's converter writes for config C (architecture = model_type)."""
    a = c["model_type"]
    kvs = [string("general.architecture", a), u32(a + ".block_count", c["num_hidden_layers"]),
           u32(a + ".context_length", c["max_position_embeddings"]),
           u32(a + ".embedding_length", c["hidden_size"]),
           u32(a + ".feed_forward_length", c["intermediate_size"]),
           u32(a + ".attention.head_count", c["num_attention_heads"]),
           u32(a + ".attention.head_count_kv", c["num_key_value_heads"]),
           f32v(a + ".rope.freq_base", c["rope_theta"]),
           f32v(a + ".attention.layer_norm_rms_epsilon", c["rms_norm_eps"])]
    if c.get("head_dim"):
        kvs += [u32(a + ".attention.key_length", c["head_dim"]),
                u32(a + ".attention.value_length", c["head_dim"])]
    r = c.get("rope_scaling")
    if r and r.get("type", r.get("rope_type")) == "linear":
        kvs += [string(a + ".rope.scaling.type", "linear"), f32v(a + ".rope.scaling.factor", r["factor"])]
    return kvs


def stored_values(rng, kind, rows, cols, target):
    """Random valid blocks of KIND for a ROWS × COLS matrix whose values have about the standard
    deviation TARGET: (raw bytes, the float32 matrix they decode to)."""
    probe = gw.decode(kind, gw.random_blocks(np.random.default_rng(0), kind, rows * cols))
    raw = gw.random_blocks(rng, kind, rows * cols, target / probe.std())
    return raw, gw.decode(kind, raw).reshape(rows, cols)


def model_tensors(rng, c, kinds):
    """The GGUF tensors of a tiny model of config C: matrices of the types KINDS cycles through,
    vectors F32 (as the converter keeps them). Returns (tensors for gw.gguf_bytes, the float32
    weights under Hugging Face's names that those tensors stand for)."""
    from llama_tiny import biases
    d, hd, ff, v = c["hidden_size"], head_dim(c), c["intermediate_size"], c["vocab_size"]
    H, KV = c["num_attention_heads"], c["num_key_value_heads"]
    qkv_b, o_b, mlp_b = biases(c)
    llama = c["model_type"] == "llama"
    shapes = [("model.embed_tokens.weight", v, d, 0.5)]
    if not c.get("tie_word_embeddings"):
        shapes.append(("lm_head.weight", v, d, 0.4))
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        for name, rows, cols, bias in (("self_attn.q_proj", H * hd, d, qkv_b),
                                       ("self_attn.k_proj", KV * hd, d, qkv_b),
                                       ("self_attn.v_proj", KV * hd, d, qkv_b),
                                       ("self_attn.o_proj", d, H * hd, o_b),
                                       ("mlp.gate_proj", ff, d, mlp_b), ("mlp.up_proj", ff, d, mlp_b),
                                       ("mlp.down_proj", d, ff, mlp_b)):
            shapes.append((p + name + ".weight", rows, cols, 0.8 / np.sqrt(cols)))
            if bias:
                shapes.append((p + name + ".bias", rows, 0, 0.2))
        shapes += [(p + "input_layernorm.weight", d, 0, None),
                   (p + "post_attention_layernorm.weight", d, 0, None)]
    shapes.append(("model.norm.weight", d, 0, None))
    tensors, hf = [], {}
    for i, (name, rows, cols, target) in enumerate(shapes):
        heads = H if ".q_proj." in name else KV if ".k_proj." in name else 0
        if cols == 0:  # a vector: F32, a norm's gain near 1
            value = (rng.normal(0, 0.1, rows) + 1 if target is None
                     else rng.normal(0, target, rows)).astype(np.float32)
            stored = permute(value, heads) if llama and heads else value
            tensors.append((gguf_name(name), [rows], "F32", stored.tobytes()))
            hf[name] = value
            continue
        kind = kinds[i % len(kinds)]
        raw, stored = stored_values(rng, kind, rows, cols, target)
        tensors.append((gguf_name(name), [cols, rows], kind, raw))
        hf[name] = unpermute(stored, heads) if llama and heads else stored
    return tensors, hf


def hf_to_stored(hf, c):
    """Hugging Face weights → F32 GGUF tensors as the converter stores them (permuted Q/K)."""
    H, KV = c["num_attention_heads"], c["num_key_value_heads"]
    out = []
    for name, value in hf.items():
        heads = H if ".q_proj." in name else KV if ".k_proj." in name else 0
        stored = permute(value, heads) if c["model_type"] == "llama" and heads else value
        out.append((gguf_name(name), list(reversed(value.shape)), "F32",
                    np.ascontiguousarray(stored, np.float32).tobytes()))
    return out


def bpe_tokenizer_kvs(vocab, merges, added, pre, add_bos=None, bos=None, eos=None):
    """tokenizer.ggml.* of a byte-level BPE tokenizer (llama.cpp's gpt2 model): VOCAB {token: id},
    MERGES ["a b"], ADDED [(id, content, special)]."""
    tokens = [""] * (max(list(vocab.values()) + [a[0] for a in added]) + 1)
    types = [NORMAL] * len(tokens)
    for t, i in vocab.items():
        tokens[i] = t
    for i, content, special in added:
        tokens[i] = content
        types[i] = CONTROL if special else USER_DEFINED
    for i, t in enumerate(tokens):
        if t == "":  # ids no token has (converters write [PAD<i>]), unused
            tokens[i], types[i] = f"[PAD{i}]", USER_DEFINED
    kvs = [string("tokenizer.ggml.model", "gpt2"), string("tokenizer.ggml.pre", pre),
           strings("tokenizer.ggml.tokens", tokens), int32s("tokenizer.ggml.token_type", types),
           strings("tokenizer.ggml.merges", merges)]
    if bos is not None:
        kvs.append(u32("tokenizer.ggml.bos_token_id", bos))
    if eos is not None:
        kvs.append(u32("tokenizer.ggml.eos_token_id", eos))
    if add_bos is not None:
        kvs.append(boolean("tokenizer.ggml.add_bos_token", add_bos))
    return kvs


def spm_tokenizer_kvs(pieces, add_bos=True, unk=0, bos=1, eos=2, space_prefix=True):
    """tokenizer.ggml.* of a SentencePiece tokenizer (llama.cpp's llama model): PIECES
    [(piece, score, type)]."""
    return [string("tokenizer.ggml.model", "llama"),
            strings("tokenizer.ggml.tokens", [p for p, _, _ in pieces]),
            float32s("tokenizer.ggml.scores", [s for _, s, _ in pieces]),
            int32s("tokenizer.ggml.token_type", [t for _, _, t in pieces]),
            u32("tokenizer.ggml.unknown_token_id", unk), u32("tokenizer.ggml.bos_token_id", bos),
            u32("tokenizer.ggml.eos_token_id", eos), boolean("tokenizer.ggml.add_bos_token", add_bos),
            boolean("tokenizer.ggml.add_space_prefix", space_prefix)]


def tiny_bpe_vocab():
    """A byte-level BPE vocabulary of 48 tokens: letters, Ġ, and merges making a few words."""
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)] + ["Ġ", "."]
    merges = ["t h", "th e", "Ġ the", "a t", "c at", "Ġ cat", "s at", "Ġ sat", "o n", "Ġ on",
              "m at", "Ġ mat", "Ġ a", "d o", "do g", "Ġ dog", "r a", "ra n", "Ġ ran"]
    vocab = {t: i for i, t in enumerate(letters)}
    for m in merges:
        vocab.setdefault(m.replace(" ", ""), len(vocab))
    return vocab, merges


def tiny_spm_pieces(vocab_size):
    """SentencePiece pieces: <unk> <s> </s>, the 256 byte pieces, ▁ and letters, a few words;
    scores fall with the id as SentencePiece's BPE trainer orders its pieces."""
    pieces = [("<unk>", 0.0, UNKNOWN), ("<s>", 0.0, CONTROL), ("</s>", 0.0, CONTROL)]
    pieces += [(f"<0x{b:02X}>", 0.0, BYTE) for b in range(256)]
    words = ["▁t", "he", "▁the", "at", "▁c", "▁cat", "▁s", "▁sat", "on", "▁on", "▁a"]
    normal = ["▁"] + [chr(c) for c in range(ord("a"), ord("z") + 1)] + words
    for i, p in enumerate(normal[:vocab_size - len(pieces)]):
        pieces.append((p, -float(i), NORMAL))
    return pieces


def tokenizer_from_json(tj):
    """A real tokenizer.json → the tokenizer.ggml.* llama.cpp's converter would write."""
    m = tj["model"]
    added = [(a["id"], a["content"], a["special"]) for a in tj.get("added_tokens", [])]
    post = tj.get("post_processor") or {}
    bos = None
    if post.get("type") == "TemplateProcessing":
        first = post["single"][0]
        if "SpecialToken" in first:
            bos = post["special_tokens"][first["SpecialToken"]["id"]]["ids"][0]
    if m.get("byte_fallback"):
        # SentencePiece's scores, as the tokenizer.model the tokenizer.json was converted from
        # must have held them: the converter ordered the merges by the merged piece's score, so a
        # piece scores minus the rank of its first merge; pieces no merge makes score below all.
        merges = [" ".join(x) if isinstance(x, list) else x for x in m["merges"]]
        first = {}
        for rank, pair in enumerate(merges):
            first.setdefault(pair.replace(" ", ""), rank)
        inv = {i: t for t, i in m["vocab"].items()}
        specials = {a[0] for a in added}
        pieces = []
        for i in range(len(inv)):
            t = inv[i]
            kind = (UNKNOWN if t == m.get("unk_token") else CONTROL if i in specials
                    else BYTE if len(t) == 6 and t.startswith("<0x") else NORMAL)
            score = -float(first.get(t, len(merges) + i)) if kind == NORMAL else 0.0
            pieces.append((t, score, kind))
        prepend = "Prepend" in json.dumps(tj.get("normalizer"))
        # The special ids where the file has them (Gemma: <pad> 0, <eos> 1, <bos> 2, <unk> 3).
        ids = {a[1]: a[0] for a in added}
        eos = next((ids[t] for t in ("</s>", "<eos>") if t in ids), 2)
        return spm_tokenizer_kvs(pieces, add_bos=bos is not None, space_prefix=prepend,
                                 unk=m["vocab"].get(m.get("unk_token"), 0),
                                 bos=1 if bos is None else bos, eos=eos)
    merges = [" ".join(x) if isinstance(x, list) else x for x in m["merges"]]
    regex = json.dumps(tj["pre_tokenizer"])
    pre = "qwen2" if "\\\\p{N}|" in regex else "llama-bpe"
    return bpe_tokenizer_kvs(m["vocab"], merges, added, pre, add_bos=bos is not None, bos=bos)


def tiny_config(arch, **extra):
    """A tiny model whose matrices are whole K-type blocks (rows of 256 and 512 values); a
    llama-architecture one has room for tiny_spm_pieces' 297 tokens."""
    from llama_tiny import config
    return config(arch, hidden=256, heads=4, kv_heads=2, inter=512,
                  vocab=300 if arch == "llama" else 48, **extra)


def tiny_tokenizer(c):
    """A SentencePiece tokenizer for a llama-architecture model, a byte-level BPE (pre-tokenizer
    qwen2) for the others."""
    if c["model_type"] == "llama":
        return spm_tokenizer_kvs(tiny_spm_pieces(c["vocab_size"]))
    vocab, merges = tiny_bpe_vocab()
    return bpe_tokenizer_kvs(vocab, merges, [], "qwen2")


def write_gguf(path, c, kinds, seed, tokenizer=None):
    """A whole tiny GGUF model of config C (matrices of KINDS, cycled); returns the float32
    weights under Hugging Face's names that the file stands for."""
    tensors, hf = model_tensors(np.random.default_rng(seed), c, kinds)
    kvs = config_kvs(c) + (tiny_tokenizer(c) if tokenizer is None else tokenizer)
    open(path, "wb").write(gw.gguf_bytes(tensors, 32, kvs))
    return hf


# gguf-py's names of Gemma 2's four norms (ffn_norm is the one before the feed-forward).
GEMMA_NORMS = {"input_layernorm": "attn_norm", "post_attention_layernorm": "post_attention_norm",
               "pre_feedforward_layernorm": "ffn_norm",
               "post_feedforward_layernorm": "post_ffw_norm"}


def gemma2_config(**extra):
    """A tiny Gemma 2 of whole K-type blocks, scaled by 1/√head_dim as llama.cpp does."""
    from gemma_tiny import config
    return config("gemma2", **({"hidden": 256, "heads": 4, "kv_heads": 2, "head_dim": 64,
                                "inter": 512, "vocab": 300, "query_pre_attn_scalar": 64,
                                "attn_logit_softcapping": 4.0} | extra))


def gemma2_gguf(path, c, kinds, seed, kvs_edit=None):
    """A tiny gemma2-architecture GGUF as convert_hf_to_gguf.py's Gemma2Model writes one: no
    output.weight (tied), every norm stored as 1 + w, the soft-caps and window in the metadata,
    a SentencePiece tokenizer. Returns the Hugging Face weights it stands for (norms as w)."""
    rng = np.random.default_rng(seed)
    d, hd, ff, v = c["hidden_size"], c["head_dim"], c["intermediate_size"], c["vocab_size"]
    H, KV = c["num_attention_heads"], c["num_key_value_heads"]
    mats = [("model.embed_tokens.weight", "token_embd.weight", v, d, 0.3)]
    norms = [("model.norm.weight", "output_norm.weight")]
    for l in range(c["num_hidden_layers"]):
        p, b = f"model.layers.{l}.", f"blk.{l}."
        for name, rows, cols in (("self_attn.q_proj", H * hd, d), ("self_attn.k_proj", KV * hd, d),
                                 ("self_attn.v_proj", KV * hd, d), ("self_attn.o_proj", d, H * hd),
                                 ("mlp.gate_proj", ff, d), ("mlp.up_proj", ff, d),
                                 ("mlp.down_proj", d, ff)):
            mats.append((p + name + ".weight", b + BLOCK_NAMES[name] + ".weight", rows, cols,
                         1.6 / np.sqrt(cols)))
        norms += [(p + hf + ".weight", b + g + ".weight") for hf, g in GEMMA_NORMS.items()]
    tensors, hf = [], {}
    for i, (name, gname, rows, cols, target) in enumerate(mats):
        kind = kinds[i % len(kinds)]
        raw, hf[name] = stored_values(rng, kind, rows, cols, target)
        tensors.append((gname, [cols, rows], kind, raw))
    for name, gname in norms:
        stored = (rng.normal(0, 0.1, d) + 1).astype(np.float32)  # the converter's w + 1
        tensors.append((gname, [d], "F32", stored.tobytes()))
        hf[name] = stored - np.float32(1)  # exact: Sterbenz
    a = "gemma2."
    kvs = config_kvs(c) + [f32v(a + "attn_logit_softcapping", c["attn_logit_softcapping"]),
                           f32v(a + "final_logit_softcapping", c["final_logit_softcapping"]),
                           u32(a + "attention.sliding_window", c["sliding_window"])]
    kvs += spm_tokenizer_kvs(tiny_spm_pieces(v))
    if kvs_edit:
        kvs = kvs_edit(kvs)
    open(path, "wb").write(gw.gguf_bytes(tensors, 32, kvs))
    return hf


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[0] == "tokenizer":
        path, out = args[1:3]
        kvs = [string("general.architecture", "llama")] + tokenizer_from_json(json.load(open(path)))
        open(out, "wb").write(gw.gguf_bytes([], 32, kvs))
    else:
        arch = args[1] if len(args) > 1 and not args[1].startswith("--") else "llama"
        kind = args[args.index("--kind") + 1] if "--kind" in args else "Q4_K"
        if arch == "gemma2":
            gemma2_gguf(args[0], gemma2_config(), [kind], 7)
        else:
            write_gguf(args[0], tiny_config(arch), [kind], 7)
