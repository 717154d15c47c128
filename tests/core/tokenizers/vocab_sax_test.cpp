// tokenizer.json with its model's vocabulary read straight into a map (core/src/tokenizers/
// vocab_sax.hpp, internal): the same entries the JSON tree gives, the rest of the tree as it
// was; anything but an object of ids in [0, 2^24) at model.vocab falls back to the plain parse.
// GPL-3.0-or-later.
#include <gtest/gtest.h>

#include "../../../core/src/tokenizers/vocab_sax.hpp"

namespace {

using attn::tok::detail::Json;
using attn::tok::detail::parse_vocab_object;
using attn::tok::detail::parse_with_vocab;
using attn::tok::detail::VocabMap;

TEST(VocabSax, TheVocabularyIsTheTreesAndTheRestOfTheTreeIsUnchanged) {
    const std::string text = R"({"version": "1.0", "post_processor": {"vocab": {"x": 5}},
      "model": {"type": "WordPiece", "unk_token": "[UNK]",
                "vocab": {"[UNK]": 0, "caf\u00e9": 1, "a\"b": 2, "##s": 3, "twice": 4, "twice": 9},
                "max_input_chars_per_word": 100},
      "added_tokens": [{"id": 0, "content": "[UNK]"}]})";
    Json tree;
    std::optional<VocabMap> vocab;
    ASSERT_TRUE(parse_with_vocab(text, tree, vocab));
    ASSERT_TRUE(vocab.has_value());
    const Json plain = Json::parse(text);
    VocabMap expected;
    for (const auto& [k, v] : plain["model"]["vocab"].items())
        expected[k] = v.get<std::int32_t>();
    EXPECT_EQ(*vocab, expected);
    EXPECT_EQ(vocab->at("twice"), 9);  // a repeated token: the last, as the tree keeps it
    EXPECT_EQ(vocab->at("caf\xc3\xa9"), 1);
    Json without = plain;
    without["model"]["vocab"] = Json::object();
    EXPECT_EQ(tree, without);  // post_processor.vocab, a different path, stays in the tree
}

TEST(VocabSax, AnythingButIdsFallsBackAndAnArrayVocabularyStaysInTheTree) {
    for (const char* bad :
         {R"({"model": {"vocab": {"a": 1.5}}})", R"({"model": {"vocab": {"a": -1}}})",
          R"({"model": {"vocab": {"a": 16777216}}})", R"({"model": {"vocab": {"a": [1]}}})",
          R"({"model": {"vocab": {"a": 1})"}) {
        Json tree;
        std::optional<VocabMap> vocab;
        EXPECT_FALSE(parse_with_vocab(bad, tree, vocab)) << bad;
    }
    const std::string unigram =
        R"({"model": {"type": "Unigram", "vocab": [["a", -1.5], ["b", -2]]}})";
    Json tree;
    std::optional<VocabMap> vocab;
    ASSERT_TRUE(parse_with_vocab(unigram, tree, vocab));
    EXPECT_FALSE(vocab.has_value());
    EXPECT_EQ(tree, Json::parse(unigram));
    // The largest id there may be is read.
    ASSERT_TRUE(parse_with_vocab(R"({"model": {"vocab": {"z": 16777215}}})", tree, vocab));
    EXPECT_EQ(vocab->at("z"), 16777215);
}

// Marian's vocab.json: one object of ids, read as the tree reads it; anything else refused, so
// that the caller's plain parse names what is wrong.
TEST(VocabSax, AVocabObjectIsTheTreesEntriesAndAnythingElseIsRefused) {
    const std::string text =
        R"({"</s>": 0, "<unk>": 1, "▁café": 2, "a\"b": 3, "twice": 4, "": 5,
            "twice": 7, "z": 16777215})";
    VocabMap vocab;
    ASSERT_TRUE(parse_vocab_object(text, vocab));
    const Json tree = Json::parse(text);
    VocabMap expected;
    for (const auto& [k, v] : tree.items())
        expected[k] = v.get<std::int32_t>();
    EXPECT_EQ(vocab, expected);
    EXPECT_EQ(vocab.size(), 7u);
    EXPECT_EQ(vocab.at("twice"), 7);  // the last of a repeated piece, as the tree keeps it
    EXPECT_EQ(vocab.at(""), 5);
    EXPECT_EQ(vocab.at("a\"b"), 3);
    EXPECT_EQ(vocab.at("\xE2\x96\x81"
                       "caf\xc3\xa9"),
              2);
    for (const char* bad : {R"({"a": 1.5})", R"({"a": -1})", R"({"a": 16777216})", R"({"a": [1]})",
                            R"({"a": {"b": 1}})", R"({"a": "1"})", R"({"a": null})", R"([1, 2])",
                            R"(3)", R"({"a": 1)", R"({"a": 1} {"b": 2})", ""}) {
        VocabMap v;
        EXPECT_FALSE(parse_vocab_object(bad, v)) << bad;
    }
    VocabMap empty;
    EXPECT_TRUE(parse_vocab_object("{}", empty));
    EXPECT_TRUE(empty.empty());
}

}  // namespace
