# AttnScope — tiny random Marian and T5 folders for the CLI tests, with SentencePiece models
# trained here by python3-sentencepiece, and an independent numpy encoder–decoder (float64) with
# the greedy / beam search of issue #40 (docs/seq2seq.md). GPL-3.0-or-later.
import io
import json
import math
import os
import sys

import numpy as np
import sentencepiece as spm

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "core"))
import llama_tiny  # noqa: E402  (safetensors writing, BF16/F16 rounding)

SOURCE = ["the cat sat on the mat", "a dog ran far away from the house",
          "the small bird sings in the morning", "my friend reads a book every night",
          "we walk to the old bridge by the river", "the children play in the green garden"]
TARGET = ["die katze sass auf der matte", "ein hund lief weit weg vom haus",
          "der kleine vogel singt am morgen", "mein freund liest jeden abend ein buch",
          "wir gehen zur alten bruecke am fluss", "die kinder spielen im gruenen garten"]


def train_spm(sentences, vocab_size, **ids):
    """A unigram SentencePiece model trained on SENTENCES; its serialized bytes."""
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(sentences), model_writer=model,
                                   vocab_size=vocab_size, model_type="unigram",
                                   character_coverage=1.0, hard_vocab_limit=False,
                                   minloglevel=2, **ids)
    return model.getvalue()


def processor(blob):
    p = spm.SentencePieceProcessor()
    p.LoadFromSerializedProto(blob)
    return p


def pieces_of(p):
    return [p.IdToPiece(i) for i in range(p.GetPieceSize())
            if not (p.IsControl(i) or p.IsUnknown(i))]


def marian_vocab(*processors, drop=()):
    """Opus-mt's layout: </s> 0, <unk> 1, the pieces, <pad> last (less the pieces in DROP)."""
    vocab = {"</s>": 0, "<unk>": 1}
    for p in processors:
        for piece in pieces_of(p):
            if piece not in vocab and piece not in drop:
                vocab[piece] = len(vocab)
    vocab[">>de<<"] = len(vocab)  # a multilingual model's target-language code
    vocab["<pad>"] = len(vocab)
    return vocab


def marian_ids(p, vocab, text):
    """transformers' MarianTokenizer: a leading ">>xx<<" code one token, the rest SentencePiece's."""
    code = [text[:text.rindex("<<") + 2]] if text.startswith(">>") else []
    rest = text[len(code[0]):] if code else text
    pieces = code + p.encode(rest, out_type=str)
    return [vocab.get(piece, vocab["<unk>"]) for piece in pieces] + [0]


def write_folder(folder, c, w, dtype="F32"):
    os.makedirs(folder, exist_ok=True)
    return llama_tiny.write_model(folder, w, c, dtype)


def marian_folder(folder, seed, shared=True, act="swish", eos_bias=0.0, dtype="F32"):
    """A tiny Marian folder; returns (config, weights as stored, tokenizers: (src, vocab), (tgt, vocab))."""
    os.makedirs(folder, exist_ok=True)
    src_blob, tgt_blob = train_spm(SOURCE, 40), train_spm(TARGET, 40)
    open(os.path.join(folder, "source.spm"), "wb").write(src_blob)
    open(os.path.join(folder, "target.spm"), "wb").write(tgt_blob)
    src, tgt = processor(src_blob), processor(tgt_blob)
    # One piece of the source left out of vocab.json: it reads <unk>.
    drop = (src.encode("the cat", out_type=str)[-1],)
    if shared:
        sv = tv = marian_vocab(src, tgt, drop=drop)
        json.dump(sv, open(os.path.join(folder, "vocab.json"), "w"))
    else:
        sv, tv = marian_vocab(src, drop=drop), marian_vocab(tgt)
        json.dump(sv, open(os.path.join(folder, "vocab.json"), "w"))
        json.dump(tv, open(os.path.join(folder, "target_vocab.json"), "w"))
    d, f, L = 16, 32, 2
    c = {"model_type": "marian", "d_model": d, "encoder_layers": L, "decoder_layers": L,
         "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": f,
         "decoder_ffn_dim": f, "vocab_size": len(sv), "decoder_vocab_size": len(tv),
         "max_position_embeddings": 64, "scale_embedding": True, "activation_function": act,
         "share_encoder_decoder_embeddings": shared, "pad_token_id": tv["<pad>"],
         "eos_token_id": 0, "decoder_start_token_id": tv["<pad>"]}
    rng = np.random.default_rng(seed)
    r = lambda *s: rng.normal(0, 0.3, s)  # noqa: E731
    w = {}
    if shared:
        w["model.shared.weight"] = r(len(sv), d)
    else:
        w["model.encoder.embed_tokens.weight"] = r(len(sv), d)
        w["model.decoder.embed_tokens.weight"] = r(len(tv), d)
        w["lm_head.weight"] = r(len(tv), d)
    bias = r(1, len(tv))
    bias[0, 0] += eos_bias
    w["final_logits_bias"] = bias
    for side, blocks in (("encoder", ["self_attn"]), ("decoder", ["self_attn", "encoder_attn"])):
        for l in range(L):
            p = f"model.{side}.layers.{l}."
            for b in blocks:
                for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    w[p + f"{b}.{proj}.weight"], w[p + f"{b}.{proj}.bias"] = r(d, d), r(d)
                w[p + f"{b}_layer_norm.weight"] = 1 + r(d)
                w[p + f"{b}_layer_norm.bias"] = r(d)
            w[p + "fc1.weight"], w[p + "fc1.bias"] = r(f, d), r(f)
            w[p + "fc2.weight"], w[p + "fc2.bias"] = r(d, f), r(d)
            w[p + "final_layer_norm.weight"], w[p + "final_layer_norm.bias"] = 1 + r(d), r(d)
    w = {k: v.astype(np.float32) for k, v in w.items()}
    used = write_folder(folder, c, w, dtype)
    return c, used, (src, sv), (tgt, tv)


def t5_folder(folder, seed, proj="relu", tied=True, eos_boost=1.0, dtype="F32"):
    """A tiny T5 folder with spiece.model; returns (config, weights as stored, processor)."""
    os.makedirs(folder, exist_ok=True)
    blob = train_spm(SOURCE + TARGET, 60, pad_id=0, eos_id=1, unk_id=2, bos_id=-1)
    open(os.path.join(folder, "spiece.model"), "wb").write(blob)
    p = processor(blob)
    d, dkv, H, f, L, V = 16, 4, 4, 24, 2, p.GetPieceSize() + 4
    c = {"model_type": "t5", "d_model": d, "d_kv": dkv, "d_ff": f, "num_layers": L,
         "num_decoder_layers": L, "num_heads": H, "vocab_size": V,
         "relative_attention_num_buckets": 8, "relative_attention_max_distance": 12,
         "layer_norm_epsilon": 1e-6, "feed_forward_proj": proj, "tie_word_embeddings": tied,
         "decoder_start_token_id": 0, "eos_token_id": 1, "pad_token_id": 0}
    rng = np.random.default_rng(seed)
    r = lambda *s: rng.normal(0, 0.4, s)  # noqa: E731
    w = {"shared.weight": r(V, d) * 1.5}
    w["shared.weight"][1] *= eos_boost
    if not tied:
        w["lm_head.weight"] = r(V, d)
    gated = proj.startswith("gated-")
    for side, blocks in (("encoder", ["SelfAttention"]), ("decoder", ["SelfAttention", "EncDecAttention"])):
        for l in range(L):
            p_ = f"{side}.block.{l}.layer."
            for i, b in enumerate(blocks):
                for proj_ in "qkv":
                    w[p_ + f"{i}.{b}.{proj_}.weight"] = r(H * dkv, d)
                w[p_ + f"{i}.{b}.o.weight"] = r(d, H * dkv)
                w[p_ + f"{i}.layer_norm.weight"] = 1 + 0.3 * r(d)
            if l == 0:
                w[p_ + "0.SelfAttention.relative_attention_bias.weight"] = r(8, H) * 2
            k = len(blocks)
            if gated:
                w[p_ + f"{k}.DenseReluDense.wi_0.weight"] = r(f, d)
                w[p_ + f"{k}.DenseReluDense.wi_1.weight"] = r(f, d)
            else:
                w[p_ + f"{k}.DenseReluDense.wi.weight"] = r(f, d)
            w[p_ + f"{k}.DenseReluDense.wo.weight"] = r(d, f)
            w[p_ + f"{k}.layer_norm.weight"] = 1 + 0.3 * r(d)
        w[f"{side}.final_layer_norm.weight"] = 1 + 0.3 * r(d)
    w = {k: v.astype(np.float32) for k, v in w.items()}
    used = write_folder(folder, c, w, dtype)
    return c, used, p
