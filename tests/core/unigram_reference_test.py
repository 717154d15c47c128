#!/usr/bin/env python3
"""AttnScope: tokenizer.json's Unigram model with SentencePiece's Precompiled normaliser.

A Unigram SentencePiece model is trained here by Debian's python3-sentencepiece on a few
multilingual sentences (nmt_nfkc normalisation), converted to a tokenizer.json as Hugging Face's
convert_slow_tokenizer does (Unigram vocabulary with scores, Precompiled normaliser from the
model's normalizer_spec.precompiled_charsmap, Metaspace, TemplateProcessing appending </s>), and
core's ids and decoded text are compared with Hugging Face's tokenizers library (npm
@anush008/tokenizers) and the ids with SentencePiece's own, over many strings.

    unigram_reference_test.py TOOL NPM_DIR VARIANT
VARIANT t5: the classic T5 file (Precompiled; WhitespaceSplit + Metaspace add_prefix_space).
VARIANT bytes: a byte_fallback model in today's converter's form (Sequence of Precompiled,
Strip right and Replace " {2,}" → ▁; Metaspace prepend_scheme always).
VARIANT random: no SentencePiece model but 20,000 random pieces of Latin, Cyrillic, CJK and
Hangul characters whose scores are multiples of 0.5 (many equal-scoring paths: the ties), on
random texts, against the library alone.
"""
import random
import base64
import io
import json
import os
import subprocess
import sys
import tempfile

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))

TRAIN = [
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "Attention was invented to align a translation with its source sentence.",
    "Der schnelle braune Fuchs springt über den faulen Hund am Flussufer.",
    "Le renard brun rapide saute par-dessus le chien paresseux près de la rivière.",
    "El rápido zorro marrón salta sobre el perro perezoso junto al río.",
    "Быстрая коричневая лиса прыгает через ленивую собаку у реки.",
    "Η γρήγορη καφέ αλεπού πηδά πάνω από τον τεμπέλικο σκύλο.",
    "素早い茶色の狐が川のそばで怠け者の犬を飛び越える。",
    "敏捷的棕色狐狸跳过了河边的懒狗。",
    "Numbers like 2024, 3.14 and 1,000 appear in sentences too.",
    "Straße, café, naïve, Ångström, déjà vu, façade, jalapeño.",
    "translation models align source words with target words",
    "the encoder reads the source and the decoder writes the target",
]

CASES = [
    "Hello world",
    "  leading and trailing spaces   ",
    "spaces    runs\tand\ttabs\nnewlines\r\n",
    "café naïve déjà vu Straße Ångström",
    "decomposed: cafe\u0301 n\u0303 A\u030a q\u0307\u0323",
    "ＦＵＬＬＷＩＤＴＨ ＡＢＣ１２３ ｶﾀｶﾅ ① ² ½ ﬁ ﬀ ™ ㎏ ℌ",
    "emoji 🙂🚀 family 👩\u200d👩\u200d👧 flag 🇩🇪 skin 👍🏽 keycap 1️⃣",
    "unknown: 한국어 ภาษาไทย עברית العربية हिन्दी ✓✓✓ ☃",
    "Быстрая лиса, Η αλεπού, 狐狸跳过, 素早い狐",
    "the translation of the source sentence by the decoder",
    "Der Fuchs springt über den Hund. Le chien paresseux.",
    "zero\u200bwidth soft\u00adhyphen nbsp\u00a0here ideographic\u3000space",
    "control\x07chars and \ufffd replacement",
    "<unk> </s> <pad> literal markers ▁ ▁▁ x▁y",
    "a",
    "",
    " ",
    "ZZZZ qqqq xxxx 99999 !!!??? ...",
]

# Where the tokenizers library departs from SentencePiece on purpose, compared with the library
# only: a grapheme of 6 bytes or more is normalised a character at a time (spm_precompiled's
# rule), where SentencePiece matches the longest prefix.
HF_ONLY = ["e\u0301\u0301\u0301 stacked accents", "x\u0301\u0302\u0303\u0304 and y\u0323\u0307"]


def varint(buf, i):
    v, shift = 0, 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, i


def fields(buf):
    """The (field number, wire type, value) of a serialised protobuf message."""
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(buf, i)
        elif wire == 1:
            v, i = buf[i : i + 8], i + 8
        elif wire == 2:
            n, i = varint(buf, i)
            v, i = buf[i : i + n], i + n
        elif wire == 5:
            v, i = buf[i : i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wire)
        yield num, wire, v


def precompiled_charsmap(model):
    """ModelProto.normalizer_spec (3).precompiled_charsmap (2)."""
    for num, _, v in fields(model):
        if num == 3:
            for n2, _, v2 in fields(v):
                if n2 == 2:
                    return bytes(v2)
    raise SystemExit("FAIL: the trained model has no precompiled_charsmap")


def train(byte_fallback):
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TRAIN * 4),
        model_writer=out,
        model_type="unigram",
        vocab_size=600 if byte_fallback else 260,
        hard_vocab_limit=False,
        normalization_rule_name="nmt_nfkc",
        pad_id=0,
        eos_id=1,
        unk_id=2,
        bos_id=-1,
        byte_fallback=byte_fallback,
        character_coverage=1.0,
        minloglevel=2,
    )
    return out.getvalue()


def tokenizer_json(sp, model, variant):
    vocab = [[sp.id_to_piece(i), sp.get_score(i)] for i in range(sp.get_piece_size())]
    # T5's sentinel tokens: in the vocabulary with score 0 and added as special tokens.
    extra = ["<extra_id_%d>" % k for k in range(2, -1, -1)]
    vocab += [[t, 0.0] for t in extra]
    added = [
        {"id": i, "content": sp.id_to_piece(i), "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False, "special": True}
        for i in range(sp.get_piece_size()) if sp.is_control(i) or sp.is_unknown(i)
    ] + [
        {"id": sp.get_piece_size() + k, "content": t, "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False, "special": True}
        for k, t in enumerate(extra)
    ]
    charsmap = base64.b64encode(precompiled_charsmap(model)).decode()
    post = {
        "type": "TemplateProcessing",
        "single": [{"Sequence": {"id": "A", "type_id": 0}},
                   {"SpecialToken": {"id": "</s>", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                 {"SpecialToken": {"id": "</s>", "type_id": 0}},
                 {"Sequence": {"id": "B", "type_id": 0}},
                 {"SpecialToken": {"id": "</s>", "type_id": 0}}],
        "special_tokens": {"</s>": {"id": "</s>", "ids": [sp.eos_id()], "tokens": ["</s>"]}},
    }
    if variant == "t5":
        normalizer = {"type": "Precompiled", "precompiled_charsmap": charsmap}
        pre = {"type": "Sequence", "pretokenizers": [
            {"type": "WhitespaceSplit"},
            {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True}]}
        decoder = {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True}
        model_json = {"type": "Unigram", "unk_id": sp.unk_id(), "vocab": vocab}
    else:
        normalizer = {"type": "Sequence", "normalizers": [
            {"type": "Precompiled", "precompiled_charsmap": charsmap},
            {"type": "Strip", "strip_left": False, "strip_right": True},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "▁"}]}
        pre = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always",
               "split": True}
        decoder = {"type": "Sequence", "decoders": [
            {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always",
             "split": True},
            {"type": "ByteFallback"}, {"type": "Fuse"}]}
        model_json = {"type": "Unigram", "unk_id": sp.unk_id(), "vocab": vocab,
                      "byte_fallback": True}
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": normalizer, "pre_tokenizer": pre, "post_processor": post,
            "decoder": decoder, "model": model_json}


def tie(sp, a, b):
    """Whether ids A and B differ only where they split the same text into pieces of equal total
    score (to float32's rounding of the path sums SentencePiece adds up)."""
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    ja, jb = len(a), len(b)
    while ja > i and jb > i and a[ja - 1] == b[jb - 1]:
        ja, jb = ja - 1, jb - 1
    da, db = a[i:ja], b[i:jb]
    if not da or not db or sp.unk_id() in da + db:
        return False
    if "".join(map(sp.id_to_piece, da)) != "".join(map(sp.id_to_piece, db)):
        return False
    sa, sb = sum(map(sp.get_score, da)), sum(map(sp.get_score, db))
    return abs(sa - sb) <= 1e-5 * max(1.0, abs(sa))


def library(npm, tokenizer, cases, tool):
    """(the library's lines, core's lines) for CASES: ids, then decoded text, per case."""
    with tempfile.TemporaryDirectory() as work:
        tj = os.path.join(work, "tokenizer.json")
        with open(tj, "w", encoding="utf-8") as f:
            json.dump(tokenizer, f, ensure_ascii=False)
        cf = os.path.join(work, "cases.json")
        with open(cf, "w", encoding="utf-8") as f:
            json.dump(cases, f, ensure_ascii=False)
        hf = subprocess.run(["node", os.path.join(HERE, "hf_tokenizer_reference.js"), npm, tj, cf],
                            capture_output=True, text=True)
        if hf.returncode != 0:
            raise SystemExit(hf.stdout + hf.stderr)
        core = subprocess.run([tool, tj, cf], capture_output=True, text=True)
        if core.returncode != 0:
            raise SystemExit("FAIL: core refused the tokenizer: " + core.stderr)
    return hf.stdout.splitlines(), core.stdout.splitlines()


def random_variant(tool, npm):
    rng = random.Random(40)
    alphabet = "abcdefghijklmnopqrstuvwxyzäöüéßабвгдежзиклмнопр日本語中文字한국어텍스트"
    pieces = {}
    while len(pieces) < 20000:
        p = "▁" * (rng.random() < 0.3) + "".join(rng.choice(alphabet)
                                               for _ in range(rng.randint(1, 6)))
        pieces.setdefault(p, -0.5 * rng.randint(1, 24))
    vocab = [["<unk>", 0.0]] + [[p, s] for p, s in pieces.items()]
    tok = {"normalizer": None,
           "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always",
                             "split": True},
           "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"},
           "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab}}
    cases = ["".join(rng.choice(alphabet + "  ?!🙂") for _ in range(rng.randint(1, 120)))
             for _ in range(400)]
    hf, core = library(npm, tok, cases, tool)
    bad = [k for k in range(len(cases)) if hf[2 * k:2 * k + 2] != core[2 * k:2 * k + 2]]
    for k in bad[:5]:
        print("FAIL: %r\n  tokenizers: %s\n  core:       %s" % (cases[k], hf[2 * k], core[2 * k]))
    tokens = sum(len(json.loads(hf[2 * k])) for k in range(len(cases)))
    if bad or tokens < 5000:
        raise SystemExit("FAIL: random: %d of %d texts differ (%d tokens)" %
                         (len(bad), len(cases), tokens))
    print("random: %d texts, %d tokens over 20,000 pieces of tied scores, the same ids and "
          "decoded text as Hugging Face's tokenizers" % (len(cases), tokens))


def main():
    tool, npm, variant = sys.argv[1:4]
    if not os.path.exists(os.path.join(npm, ".installed")):
        raise SystemExit("FAIL: the npm references are not installed in %s "
                         "(scripts/npm_references.sh)" % npm)
    if variant == "random":
        return random_variant(tool, npm)
    byte_fallback = variant == "bytes"
    model = train(byte_fallback)
    sp = spm.SentencePieceProcessor(model_proto=model)
    with open(os.path.join(HERE, "..", "data", "tokenizer_corpus.json"), encoding="utf-8") as f:
        corpus = json.load(f)
    # Texts that spell a special token are split at it by the library (its added tokens), and
    # those that spell a byte piece <0xNN> match it as a piece of the vocabulary, while
    # SentencePiece reads both as text: compared with the library only, like HF_ONLY.
    specials = [sp.id_to_piece(i) for i in range(sp.get_piece_size())
                if sp.is_control(i) or sp.is_unknown(i) or sp.is_byte(i)]
    both = [t for t in CASES + corpus if not any(x in t for x in specials)]
    cases = CASES + corpus + HF_ONLY + ["\n".join(both), "\n".join(CASES + corpus + HF_ONLY)]
    with_sp = set(both + ["\n".join(both)])
    hf, core = library(npm, tokenizer_json(sp, model, variant), cases, tool)
    assert len(hf) == 2 * len(cases), "the reference printed %d lines" % len(hf)
    bad = 0
    unk = sp.unk_id()
    checked_sp = ties = 0
    for k, text in enumerate(cases):
        h_ids, c_ids = json.loads(hf[2 * k]), json.loads(core[2 * k])
        if h_ids != c_ids or hf[2 * k + 1] != core[2 * k + 1]:
            bad += 1
            print("FAIL: %r\n  tokenizers: %s %s\n  core:       %s %s" %
                  (text, h_ids, hf[2 * k + 1], c_ids, core[2 * k + 1]))
            continue
        if text not in with_sp:
            continue
        s_ids = sp.encode(text) + [sp.eos_id()]
        checked_sp += 1
        if s_ids == c_ids:
            continue
        if tie(sp, s_ids, c_ids):
            ties += 1
            continue
        bad += 1
        print("FAIL: %r\n  sentencepiece: %s\n  core:          %s" % (text, s_ids, c_ids))
    # Characters no piece covers: unknown tokens, or byte pieces with byte_fallback.
    fallback = {unk} | {i for i in range(sp.get_piece_size()) if sp.is_byte(i)}
    unknown = sum(i in fallback for k in range(len(cases)) for i in json.loads(hf[2 * k]))
    if bad:
        raise SystemExit("FAIL: %s: %d of %d texts differ" % (variant, bad, len(cases)))
    if checked_sp < 30 or unknown < 50:
        raise SystemExit("FAIL: only %d texts against SentencePiece, %d unknown or byte tokens" %
                         (checked_sp, unknown))
    print("%s: %d texts (%d unknown or byte tokens, vocabulary of %d), the same ids and decoded text as "
          "Hugging Face's tokenizers; %d of them the same ids as SentencePiece (%d of those an "
          "equal-scoring split of the same text, which SentencePiece's float32 sums break the "
          "other way)" % (variant, len(cases), unknown, sp.get_piece_size(), checked_sp, ties))


if __name__ == "__main__":
    main()
