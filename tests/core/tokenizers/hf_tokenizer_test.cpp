// tokenizer.json tokenizers on tiny files written here, with ids worked out by hand.
#include <gtest/gtest.h>

#include "attn/tokenizers/hf_tokenizer.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::tok::HfTokenizer;
using Ids = std::vector<std::int32_t>;

// SentencePiece-style BPE (Llama 2's layout): ▁ for spaces, <0xNN> byte pieces, fused <unk>.
constexpr const char* kSentencePiece = R"({
 "added_tokens": [{"id": 1, "content": "<s>", "special": true, "normalized": false}],
 "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
   {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
 "pre_tokenizer": null,
 "post_processor": {"type": "TemplateProcessing",
   "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
   "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
 "decoder": {"type": "Sequence", "decoders": [
   {"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, {"type": "ByteFallback"},
   {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
 "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "byte_fallback": true,
   "vocab": {"<unk>": 0, "<s>": 1, "<0xC3>": 2, "<0xA9>": 3, "▁": 4, "a": 5, "b": 6, "ab": 7,
             "▁ab": 8, "c": 9, "<0x41>": 10},
   "merges": ["a b", ["▁", "ab"]]}})";

TEST(HfTokenizer, BpeMergesByRankWithTheTemplatesBos) {
    const auto t = HfTokenizer::parse(kSentencePiece, "sp.json");
    // "▁ab▁c": a+b (rank 0) → ab, then ▁+ab (rank 1) → ▁ab; ▁ and c stay.
    EXPECT_EQ(t.encode("ab c"), (Ids{1, 8, 4, 9}));
    EXPECT_EQ(t.encode(""), (Ids{1}));
    EXPECT_EQ(t.vocab_size(), 11u);
    EXPECT_EQ(t.token_id("<s>"), 1);
    EXPECT_EQ(t.token_id("▁ab"), 8);
    EXPECT_FALSE(t.token_id("zz").has_value());
    EXPECT_TRUE(t.is_special(1));
    EXPECT_FALSE(t.is_special(8));
}

TEST(HfTokenizer, ByteFallbackAndFusedUnknown) {
    const auto t = HfTokenizer::parse(kSentencePiece, "sp.json");
    // é is not in the vocabulary: its two bytes are; x has no byte piece, so it is <unk>, and
    // two unknown characters in a row fuse into one <unk>.
    EXPECT_EQ(t.encode("é"), (Ids{1, 4, 2, 3}));
    EXPECT_EQ(t.encode("xx"), (Ids{1, 4, 0}));
    EXPECT_EQ(t.encode("<s>ab"), (Ids{1, 1, 8}));  // the added token, then "▁ab" (Prepend)
}

TEST(HfTokenizer, DecodesAndLabelsSentencePiece) {
    const auto t = HfTokenizer::parse(kSentencePiece, "sp.json");
    EXPECT_EQ(t.decode({1, 8, 4, 9}), "<s> ab c");
    EXPECT_EQ(t.decode({8, 4, 2, 3}), "ab é");  // Strip takes the first space only
    EXPECT_EQ(t.decode({2}), "\xEF\xBF\xBD");   // half a character
    EXPECT_EQ(t.token_text(8), " ab");
    EXPECT_EQ(t.token_text(1), "<s>");
    EXPECT_EQ(t.token_text(10), "A");      // a printable byte shows as itself
    EXPECT_EQ(t.token_text(2), "<0xC3>");  // a byte that is no character alone
    EXPECT_EQ(t.display_tokens({1, 4, 2, 3, 9}),
              (std::vector<std::string>{"<s>", " ", "é", "", "c"}));
    const auto labels = t.display_labels({1, 2, 3});
    EXPECT_TRUE(labels[0].special);
    EXPECT_TRUE(labels[2].continues);
    // An id past the vocabulary (a model's padding row) reads as its number; a negative one is
    // no id at all.
    EXPECT_EQ(t.decode({11}), "<id 11>");
    EXPECT_EQ(t.token_text(11), "<id 11>");
    EXPECT_THROW(t.decode({-1}), attn::ArgumentError);
    EXPECT_THROW(t.encode("\xC3"), attn::ArgumentError);
}

TEST(HfTokenizer, EncodeWithALimit) {
    const auto t = HfTokenizer::parse(kSentencePiece, "sp.json");
    bool more = false;
    EXPECT_EQ(t.encode("ab c", 2, &more), (Ids{1, 8}));
    EXPECT_TRUE(more);
    EXPECT_EQ(t.encode("ab c", 4, &more), (Ids{1, 8, 4, 9}));
    EXPECT_FALSE(more);
    // A long text: the first ids of a prefix equal the first ids of the whole.
    std::string text;
    for (int i = 0; i < 5000; ++i)
        text += i % 7 ? "ab " : "c ab é ";
    const Ids all = t.encode(text);
    const Ids first = t.encode(text, 100, &more);
    EXPECT_TRUE(more);
    EXPECT_EQ(first, Ids(all.begin(), all.begin() + 100));
}

// BERT: BertNormalizer, BertPreTokenizer, WordPiece, BertProcessing, WordPiece decoder.
constexpr const char* kBert = R"({
 "added_tokens": [{"id": 4, "content": "[MASK]", "special": true, "normalized": false},
                  {"id": 2, "content": "[CLS]", "special": true, "normalized": false}],
 "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                "strip_accents": null, "lowercase": true},
 "pre_tokenizer": {"type": "BertPreTokenizer"},
 "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
 "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
 "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
   "max_input_chars_per_word": MAXCHARS,
   "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "the": 5, "cat": 6,
             "##s": 7, "un": 8, "##aff": 9, "##able": 10, ",": 11, "cafe": 12, "中": 13}}})";

std::string bert(int max_chars) {
    std::string s = kBert;
    s.replace(s.find("MAXCHARS"), 8, std::to_string(max_chars));
    return s;
}

TEST(HfTokenizer, WordPieceGreedyLongestFirst) {
    const auto t = HfTokenizer::parse(bert(100), "bert.json");
    // the | cat ##s | , | un ##aff ##able | [MASK] | cafe (accent stripped) | dog → [UNK] | 中
    EXPECT_EQ(t.encode("The CATS, unaffable [MASK] Café dog中"),
              (Ids{2, 5, 6, 7, 11, 8, 9, 10, 4, 12, 1, 13, 3}));
    EXPECT_EQ(t.decode({2, 5, 6, 7, 11, 8, 9, 10, 4, 3}), "[CLS] the cats, unaffable [MASK] [SEP]");
    EXPECT_EQ(t.token_text(7), "##s");
    EXPECT_EQ(t.token_id("[MASK]"), 4);
    EXPECT_TRUE(t.is_special(4));
}

TEST(HfTokenizer, WordPieceLongWordIsUnknown) {
    // "unaffable" has 9 characters: over a limit of 8 it is one [UNK].
    EXPECT_EQ(HfTokenizer::parse(bert(8), "bert.json").encode("unaffable the"), (Ids{2, 1, 5, 3}));
    EXPECT_EQ(HfTokenizer::parse(bert(9), "bert.json").encode("unaffable"), (Ids{2, 8, 9, 10, 3}));
}

// Metaspace over a tiny ▁ vocabulary; "a▁" merges first, so pieces show whether ▁ split them.
std::string metaspace(const std::string& scheme, bool split) {
    return R"({"added_tokens": [{"id": 5, "content": "<sep>", "special": true, "normalized": false}],
      "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": ")" +
           scheme + R"(", "split": )" + (split ? "true" : "false") + R"(},
      "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": ")" +
           scheme + R"("},
      "model": {"type": "BPE", "vocab": {"▁": 0, "a": 1, "b": 2, "▁a": 3, "▁b": 4, "<sep>": 5, "a▁": 6},
        "merges": ["a ▁", "▁ a", "▁ b"]}})";
}

TEST(HfTokenizer, MetaspacePrependSchemesAndSplit) {
    EXPECT_EQ(HfTokenizer::parse(metaspace("always", true), "m.json").encode("a b"), (Ids{3, 4}));
    // Unsplit, "▁a▁b" merges a+▁ (rank 0) first: ▁ | a▁ | b.
    EXPECT_EQ(HfTokenizer::parse(metaspace("always", false), "m.json").encode("a b"),
              (Ids{0, 6, 2}));
    // After an added token the text does not start the input: "first" adds no ▁ there.
    EXPECT_EQ(HfTokenizer::parse(metaspace("always", true), "m.json").encode("a<sep>b"),
              (Ids{3, 5, 4}));
    EXPECT_EQ(HfTokenizer::parse(metaspace("first", true), "m.json").encode("a<sep>b"),
              (Ids{3, 5, 2}));
    EXPECT_EQ(HfTokenizer::parse(metaspace("never", true), "m.json").encode("a<sep>b"),
              (Ids{1, 5, 2}));
    const auto t = HfTokenizer::parse(metaspace("first", true), "m.json");
    EXPECT_EQ(t.decode({3, 4}), "a b");  // the first token's ▁ is the prepended one
    EXPECT_EQ(t.token_text(3), " a");
}

// Split on "-" with each behavior; WordPiece shows the pieces, as each piece is one token.
std::string split(const std::string& behavior, bool invert) {
    return R"({"pre_tokenizer": {"type": "Split", "pattern": {"String": "-"}, "behavior": ")" +
           behavior + R"(", "invert": )" + (invert ? "true" : "false") + R"(},
      "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1, "b": 2,
        "c": 3, "-": 4, "a-": 5, "b-": 6, "-b": 7, "-c": 8, "--": 9}}})";
}

TEST(HfTokenizer, SplitBehaviors) {
    const auto ids = [](const std::string& b, bool invert = false) {
        return HfTokenizer::parse(split(b, invert), "split.json").encode("a-b--c");
    };
    EXPECT_EQ(ids("Removed"), (Ids{1, 2, 3}));                // a b c
    EXPECT_EQ(ids("Isolated"), (Ids{1, 4, 2, 4, 4, 3}));      // a - b - - c
    EXPECT_EQ(ids("MergedWithPrevious"), (Ids{5, 6, 4, 3}));  // a- b- - c
    EXPECT_EQ(ids("MergedWithNext"), (Ids{1, 7, 4, 8}));      // a -b - -c
    EXPECT_EQ(ids("Contiguous"), (Ids{1, 4, 2, 9, 3}));       // a - b -- c
    EXPECT_EQ(ids("Removed", true), (Ids{4, 4, 4}));          // the letters removed
}

TEST(HfTokenizer, TemplateWithSeveralIdsAndTheStringForm) {
    const std::string model =
        R"("model": {"type": "BPE", "vocab": {"x": 0, "<b>": 1, "<e>": 2, "<f>": 3}, "merges": []})";
    const std::string specials =
        R"("special_tokens": {"<b>": {"id": "<b>", "ids": [1]}, "<e>": {"id": "<e>", "ids": [2, 3]}})";
    const auto list = HfTokenizer::parse(
        R"({"post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<b>"}},
        {"Sequence": {"id": "A"}}, {"SpecialToken": {"id": "<e>"}}], )" +
            specials + "}, " + model + "}",
        "t.json");
    EXPECT_EQ(list.encode("xx"), (Ids{1, 0, 0, 2, 3}));
    const auto text = HfTokenizer::parse(R"({"post_processor": {"type": "Sequence", "processors": [
        {"type": "ByteLevel"}, {"type": "TemplateProcessing", "single": "<b> $A <e>", )" +
                                             specials + "}]}, " + model + "}",
                                         "t.json");
    EXPECT_EQ(text.encode("x"), (Ids{1, 0, 2, 3}));
}

TEST(HfTokenizer, BpeSubwordPrefixIgnoreMergesAndUnfusedUnknown) {
    const auto t = HfTokenizer::parse(R"({"pre_tokenizer": {"type": "WhitespaceSplit"},
      "model": {"type": "BPE", "unk_token": "<unk>", "continuing_subword_prefix": "##",
        "ignore_merges": true, "vocab": {"a": 0, "b": 1, "##b": 2, "ab": 3, "<unk>": 4, "##c": 5,
        "acc": 6}, "merges": ["a ##b"]}})",
                                      "p.json");
    // a ##b → ab; b ##a: ##a is unknown; x x: two unknowns, not fused; "acc" whole (ignore_merges).
    EXPECT_EQ(t.encode("ab ba xx acc abc"), (Ids{3, 1, 4, 4, 4, 6, 3, 5}));
}

TEST(HfTokenizer, NormalizersFromIcu) {
    const auto t = HfTokenizer::parse(
        R"({"normalizer": {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"},
        {"type": "Strip"}]}, "pre_tokenizer": {"type": "Whitespace"},
        "model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "fi": 1, "σας": 2, "é": 3}}})",
        "n.json");
    // ﬁ and ＦＩ are fi under NFKC + lowercase; Σ lowers to σ even at a word's end (no final ς:
    // each character on its own, as the tokenizers library); e + U+0301 composes to é.
    EXPECT_EQ(t.encode("  ﬁ ＦＩ ΣΑΣ e\u0301 "), (Ids{1, 1, 0, 3}));
    EXPECT_EQ(t.encode("σας"), (Ids{2}));
}

}  // namespace
