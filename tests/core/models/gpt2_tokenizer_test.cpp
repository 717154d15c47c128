// AttnScope — GPT-2's byte-level BPE tokenizer on GPT-2's own vocabulary and merges.
// GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "attn/models/gpt2/bpe_tokenizer.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::gpt2::BpeTokenizer;
using Ids = std::vector<std::int32_t>;

const BpeTokenizer& gpt2() {
    static const BpeTokenizer t =
        BpeTokenizer::load(ATTN_GPT2_BPE_DIR "/encoder.json", ATTN_GPT2_BPE_DIR "/vocab.bpe");
    return t;
}

std::string temp_file(const std::string& name, const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() / ("attn_bpe_" + name);
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
}

TEST(Gpt2Tokenizer, KnownIdsOfTheIssuesSentence) {
    // The ids Transformer Explainer shows for its default sentence.
    EXPECT_EQ(gpt2().encode("Data visualization empowers users to"),
              (Ids{6601, 32704, 795, 30132, 2985, 284}));
    EXPECT_EQ(gpt2().vocab_size(), 50257u);
}

TEST(Gpt2Tokenizer, HandCheckedPieces) {
    // "Hello world" = "Hello" (15496) + "Ġworld" (995).
    EXPECT_EQ(gpt2().encode("Hello world"), (Ids{15496, 995}));
    // Two spaces before a word: the first is a piece of its own ("Ġ" = 220), the second
    // belongs to the word: \s+(?!\S) stops one short of the letter.
    EXPECT_EQ(gpt2().encode("a  b"), (Ids{64, 220, 275}));
    // Contractions split off: "don't" = "don" + "'t".
    EXPECT_EQ(gpt2().encode("don't"), (Ids{9099, 470}));
    EXPECT_TRUE(gpt2().encode("").empty());
}

TEST(Gpt2Tokenizer, EndOfTextInTheTextIsTheSpecialTokenAsHuggingFaceReadsIt) {
    // GPT2Tokenizer matches its added special token before the pattern: 50256, and the text on
    // either side encoded on its own (" is" 318, " text" 2420, " here" 994).
    EXPECT_EQ(gpt2().encode("<|endoftext|> is text here"), (Ids{50256, 318, 2420, 994}));
    EXPECT_EQ(gpt2().encode("a<|endoftext|>b"), (Ids{64, 50256, 65}));
    EXPECT_EQ(gpt2().encode("x<|endoftext|><|endoftext|>"), (Ids{87, 50256, 50256}));
    EXPECT_EQ(gpt2().encode("<|endoftext|>"), (Ids{50256}));
    EXPECT_EQ(gpt2().decode({64, 50256, 65}), "a<|endoftext|>b");
    // Only the whole spelling is the token: a part of it is text ("<|" 27 91, "end" 437, …).
    EXPECT_EQ(gpt2().encode("<|endoftext|"), (Ids{27, 91, 437, 1659, 5239, 91}));
}

TEST(Gpt2Tokenizer, ALeadingByteOrderMarkIsEncodedAsItsBytes) {
    // U+FEFF is no letter, digit or space: a piece of its own, its bytes EF BB BF as the byte
    // tokens "ï" 171, "»" 119, "¿" 123 (byte-level BPE drops nothing), then "hello" 31373.
    EXPECT_EQ(gpt2().encode("\xEF\xBB\xBFhello"), (Ids{171, 119, 123, 31373}));
    EXPECT_EQ(gpt2().decode({171, 119, 123, 31373}), "\xEF\xBB\xBFhello");
}

TEST(Gpt2Tokenizer, DecodeInvertsEncodeOnAnyText) {
    for (const std::string text :
         {"Data visualization empowers users to", "  leading and trailing  ",
          "tabs\tand\nlines\n\n", "1234567 + 89 = 1234656", "Ünïcödé àccénts, naïve café",
          "emoji 🙂🚀 and 漢字", "punctuation!!! ... ??? (a) [b] {c}",
          "we're you've I'm they'll he'd it's"}) {
        const Ids ids = gpt2().encode(text);
        EXPECT_FALSE(ids.empty()) << text;
        EXPECT_EQ(gpt2().decode(ids), text);
    }
}

TEST(Gpt2Tokenizer, TokensReadAsTextWithSpacesBack) {
    const Ids ids = gpt2().encode("Data visualization");
    ASSERT_EQ(ids.size(), 2u);
    EXPECT_EQ(gpt2().token_text(ids[0]), "Data");
    EXPECT_EQ(gpt2().token_text(ids[1]), " visualization");  // "Ġvisualization" in vocab.json
    // Half an emoji is not text: its bytes are named, so no label holds a broken byte or U+FFFD.
    const Ids emoji = gpt2().encode("🙂");
    ASSERT_GE(emoji.size(), 2u);
    EXPECT_EQ(gpt2().token_text(emoji[0]).find("\xEF\xBF\xBD"), std::string::npos);
    EXPECT_NE(gpt2().token_text(emoji[0]).find("<0xF0>"),
              std::string::npos);  // 🙂 is F0 9F 99 82
}

TEST(Gpt2Tokenizer, ByteTokensShowTheirBytesSoTwoBytesNeverLookAlike) {
    // GPT-2's byte-level vocabulary spells byte 0xC3 'Ã' and 0xC4 'Ä', newline 'Ċ', 0x01 'ā'.
    const auto id = [](const char* t) { return gpt2().token_id(t).value(); };
    EXPECT_EQ(gpt2().token_text(id("\xC3\x83")), "<0xC3>");
    EXPECT_EQ(gpt2().token_text(id("\xC3\x84")), "<0xC4>");
    EXPECT_EQ(gpt2().token_text(id("\xC4\x8A")), "<0x0A>");
    EXPECT_EQ(gpt2().token_text(id("\xC4\x81")), "<0x01>");
    // A whole character made of two byte tokens still decodes as text.
    EXPECT_EQ(gpt2().decode({id("\xC3\x83"), id("\xC2\xA9")}), "\xC3\xA9");  // é
}

TEST(Gpt2Tokenizer, EncodeUpToALimitIsThePrefixOfTheWholeEncoding) {
    for (const std::string text :
         {"Data visualization empowers users to", "emoji 🙂🚀 and 漢字",
          "  leading and trailing  ", "", "a<|endoftext|>b<|endoftext|>"}) {
        const Ids all = gpt2().encode(text);
        for (std::size_t k = 0; k <= all.size() + 1; ++k) {
            bool more = false;
            const Ids first = gpt2().encode(text, k, &more);
            EXPECT_EQ(first,
                      Ids(all.begin(), all.begin() + std::ptrdiff_t(std::min(k, all.size()))))
                << text << " k=" << k;
            EXPECT_EQ(more, all.size() > k) << text << " k=" << k;
        }
    }
}

TEST(Gpt2Tokenizer, EncodeUpToALimitReadsNoFurtherThanTheLimitSpans) {
    // One 64 MB piece: merged whole it would take 64 M strings and quadratic merging (the run
    // never ends); up to 16 tokens only the bytes 17 tokens can span are merged.
    const std::string text(64u << 20, 'x');
    bool more = false;
    const Ids first = gpt2().encode(text, 16, &more);
    EXPECT_TRUE(more);
    ASSERT_EQ(first.size(), 16u);
    const std::string decoded = gpt2().decode(first);
    EXPECT_EQ(decoded, std::string(decoded.size(), 'x'));
    EXPECT_GE(decoded.size(), 16u);
}

TEST(Gpt2Tokenizer, RefusesInvalidUtf8AndNegativeIds) {
    EXPECT_THROW(gpt2().encode("bad \xC3"), attn::ArgumentError);
    EXPECT_THROW(gpt2().decode({-1}), attn::ArgumentError);
    // An id past the vocabulary (a model's padding row) reads as its number.
    EXPECT_EQ(gpt2().decode({50257}), "<id 50257>");
    EXPECT_EQ(gpt2().token_text(50257), "<id 50257>");
}

TEST(Gpt2Tokenizer, MalformedFilesNameTheFileAndThePlace) {
    const std::string merges = ATTN_GPT2_BPE_DIR "/vocab.bpe";
    const auto message = [](auto&& load) {
        try {
            load();
        } catch (const attn::FormatError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string missing =
        message([&] { BpeTokenizer::load("/nonexistent/vocab.json", merges); });
    EXPECT_NE(missing.find("/nonexistent/vocab.json"), std::string::npos) << missing;

    const std::string not_json = temp_file("notjson.json", "{\"a\": 0,");
    EXPECT_NE(message([&] { BpeTokenizer::load(not_json, merges); }).find(not_json),
              std::string::npos);

    const std::string bad_id = temp_file("badid.json", R"({"a": 0, "b": 7})");
    EXPECT_NE(message([&] { BpeTokenizer::load(bad_id, merges); }).find("has id 7"),
              std::string::npos);

    const std::string twice = temp_file("twice.json", R"({"a": 0, "b": 0})");
    EXPECT_NE(message([&] { BpeTokenizer::load(twice, merges); }).find("given twice"),
              std::string::npos);

    const std::string not_bytes = temp_file("notbytes.json", R"({" a": 0})");  // space is U+0120
    EXPECT_NE(message([&] { BpeTokenizer::load(not_bytes, merges); }).find("stands for no byte"),
              std::string::npos);

    const std::string vocab = ATTN_GPT2_BPE_DIR "/encoder.json";
    const std::string bad_merge =
        temp_file("badmerge.txt", "#version: 0.2\nĠ t\nthree parts here\n");
    const std::string m = message([&] { BpeTokenizer::load(vocab, bad_merge); });
    EXPECT_NE(m.find(bad_merge + ": line 3"), std::string::npos) << m;
    const std::string no_merges = temp_file("nomerges.txt", "#version: 0.2\n");
    EXPECT_NE(message([&] { BpeTokenizer::load(vocab, no_merges); }).find("no merges"),
              std::string::npos);
}

}  // namespace
