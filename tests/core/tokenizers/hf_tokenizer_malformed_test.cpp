// Malformed and unsupported tokenizer.json files: every file of
// tests/core/data/tokenizers_malformed/expected.tsv is refused with a FormatError that starts
// with the file's path and says what is wrong where.
#include <gtest/gtest.h>

#include <fstream>

#include "attn/tokenizers/hf_tokenizer.hpp"
#include "attn/util/error.hpp"

namespace {

const std::string kDir = std::string(ATTN_TEST_DATA_DIR) + "/tokenizers_malformed/";

TEST(HfTokenizerMalformed, EveryFileGivesItsMessage) {
    std::ifstream in(kDir + "expected.tsv");
    std::string line;
    int cases = 0;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto tab = line.find('\t');
        ASSERT_NE(tab, std::string::npos) << line;
        const std::string path = kDir + line.substr(0, tab), expected = line.substr(tab + 1);
        ++cases;
        try {
            (void)attn::tok::HfTokenizer::load(path);
            ADD_FAILURE() << path << ": loaded without error";
        } catch (const attn::FormatError& e) {
            const std::string msg = e.what();
            EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
            EXPECT_NE(msg.find(expected), std::string::npos)
                << "\n  message:  " << msg << "\n  expected: " << expected;
        } catch (const std::exception& e) {
            ADD_FAILURE() << path << ": not a FormatError: " << e.what();
        }
    }
    EXPECT_GE(cases, 30);
}

TEST(HfTokenizerMalformed, MissingFileIsNamed) {
    try {
        (void)attn::tok::HfTokenizer::load(kDir + "no_such_tokenizer.json");
        ADD_FAILURE() << "loaded a missing file";
    } catch (const attn::Error& e) {
        EXPECT_NE(std::string(e.what()).find("no_such_tokenizer.json"), std::string::npos)
            << e.what();
    }
}

TEST(HfTokenizerMalformed, EveryTruncationOfAValidFileIsRefusedCleanly) {
    const std::string valid = R"({"added_tokens": [{"id": 3, "content": "<s>", "special": true}],
      "normalizer": {"type": "NFC"}, "pre_tokenizer": {"type": "ByteLevel"},
      "post_processor": {"type": "TemplateProcessing", "single": "<s> $A",
        "special_tokens": {"<s>": {"id": "<s>", "ids": [3]}}},
      "decoder": {"type": "ByteLevel"},
      "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "<s>": 3}, "merges": ["a b"]}})";
    EXPECT_EQ(attn::tok::HfTokenizer::parse(valid, "v.json").encode("ab"),
              (std::vector<std::int32_t>{3, 2}));
    for (std::size_t n = 0; n < valid.size(); ++n)
        EXPECT_THROW((void)attn::tok::HfTokenizer::parse(valid.substr(0, n), "v.json"),
                     attn::FormatError)
            << n;
}

}  // namespace

TEST(HfTokenizerMalformed, ARegexThatBacktracksWithoutEndIsRefusedNamingTheFileAndPlace) {
    // (a+)+$ on a run of a's before a c tries every split of the run: PCRE2 stops at its match
    // limit, and the refusal says which file and which regex, and what to do.
    const std::string hostile = R"({"added_tokens": [], "normalizer": null,
      "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a+)+$"}, "behavior": "Isolated",
        "invert": false},
      "post_processor": null, "decoder": null,
      "model": {"type": "BPE", "vocab": {"a": 0, "c": 1, "aa": 2}, "merges": ["a a"]}})";
    const auto t = attn::tok::HfTokenizer::parse(hostile, "/models/hostile/tokenizer.json");
    try {
        (void)t.encode(std::string(40, 'a') + "c");
        ADD_FAILURE() << "encoded";
    } catch (const attn::ArgumentError& e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind("/models/hostile/tokenizer.json: pre_tokenizer.pattern.Regex: the "
                            "tokenizer's regex cannot be matched on this text (PCRE2 error -47: "
                            "match limit exceeded)",
                            0),
                  0u)
            << msg;
        EXPECT_NE(msg.find("shorten the text"), std::string::npos) << msg;
    }
}
