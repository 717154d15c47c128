// Tests of the BertViz (list and filter-keyed forms) and CircuitsVis JSON readers, with the
// real DistilBERT and GPT-2 payloads.
#include <gtest/gtest.h>

#include "../io_test_util.hpp"
#include "attn/io/json/attention_json.hpp"
#include "attn/io/load.hpp"
#include "attn/util/error.hpp"

namespace {

using namespace attn;

TEST(BertViz, RealDistilBertFilterKeyedForm) {
    const AttentionData d = io::load_attention(io_test::real("bertviz_distilbert_headview.json"));
    ASSERT_EQ(d.components.size(), 1u);
    const auto& c = d.components[0];
    EXPECT_EQ(c.name, "all");
    EXPECT_EQ(c.layers, 6);
    EXPECT_EQ(c.heads, 12);
    EXPECT_FALSE(c.are_scores);
    EXPECT_EQ(c.q_tokens, (std::vector<std::string>{"[CLS]", "the", "cat", "sat", "on", "the",
                                                    "mat", "[SEP]"}));
    EXPECT_EQ(c.k_tokens, c.q_tokens);
    for (Index l = 0; l < 6; ++l)
        for (Index h = 0; h < 12; ++h)
            for (Index i = 0; i < 8; ++i)
                EXPECT_NEAR(c.at(l, h).row(i).sum(), 1.f, 1e-4f);
}

TEST(BertViz, RealGpt2IsCausalAndIgnoresExtraKeys) {
    const AttentionData d = io::load_attention(io_test::real("bertviz_gpt2_headview.json"));
    ASSERT_EQ(d.components.size(), 1u);
    const auto& c = d.components[0];
    EXPECT_EQ(c.layers, 12);
    EXPECT_EQ(c.heads, 12);
    ASSERT_EQ(c.q_tokens.size(), 10u);
    EXPECT_EQ(c.q_tokens[1], " quick");
    EXPECT_EQ(c.q_tokens[9], ".");
    for (Index l = 0; l < 12; ++l)
        for (Index h = 0; h < 12; ++h)
            for (Index i = 0; i < 10; ++i)
                for (Index j = i + 1; j < 10; ++j)
                    ASSERT_EQ(c.at(l, h)(i, j), 0.f);
}

TEST(BertViz, ListFormWithRectangularCross) {
    const std::string text = R"({"attention": [
        {"name": "Encoder", "attn": [[[[0.5, 0.5], [1, 0]]]], "left_text": ["a", "b"], "right_text": ["a", "b"]},
        {"name": "Cross", "attn": [[[[0.2, 0.3, 0.5]]], [[[1, 0, 0]]]], "left_text": ["q"], "right_text": ["x", "y", "z"]},
        {"name": null, "attn": [[[[1]]]], "left_text": ["solo"], "right_text": ["solo"], "extra": 1}],
        "bidirectional": true})";
    const AttentionData d = io::parse_attention_json(text, "list.json");
    ASSERT_EQ(d.components.size(), 3u);
    EXPECT_EQ(d.components[0].name, "Encoder");
    EXPECT_EQ(d.components[1].name, "Cross");
    EXPECT_EQ(d.components[2].name, "");
    EXPECT_EQ(d.components[1].layers, 2);
    EXPECT_EQ(d.components[1].heads, 1);
    EXPECT_EQ(d.components[1].at(0, 0).cols(), 3);
    EXPECT_FLOAT_EQ(d.components[1].at(0, 0)(0, 2), 0.5f);
    EXPECT_EQ(d.components[1].at(1, 0)(0, 0), 1.f);
    EXPECT_EQ(d.components[1].k_tokens, (std::vector<std::string>{"x", "y", "z"}));
}

TEST(BertViz, FilterKeyedFormWithSeveralFilters) {
    const std::string text =
        "\xEF\xBB\xBF"
        R"({"attention": {
        "all": {"attn": [[[[1, 0], [0, 1]]]], "left_text": ["a", "b"], "right_text": ["a", "b"]},
        "ab": {"attn": [[[[1]], [[1]]]], "left_text": ["a"], "right_text": ["b"]}},
        "default_filter": "all"})";
    const AttentionData d = io::parse_attention_json(text, "filters.json");
    ASSERT_EQ(d.components.size(), 2u);
    // BertViz's menu order ("all" first), and the default filter is where the file opens.
    EXPECT_EQ(d.components[0].name, "all");
    EXPECT_EQ(d.components[1].name, "ab");
    EXPECT_EQ(d.components[1].heads, 2);
    EXPECT_EQ(d.default_component, 0);
}

TEST(CircuitsVis, HeadsDestSrcWithTokens) {
    const std::string text =
        R"({"attention": [[[1, 0], [0.25, 0.75]], [[1, 0], [0.5, 0.5]], [[1, 0], [0, 1]]], "tokens": ["Hi", "!"]})";
    const AttentionData d = io::parse_attention_json(text, "cv.json");
    ASSERT_EQ(d.components.size(), 1u);
    EXPECT_EQ(d.components[0].heads, 3);
    EXPECT_EQ(d.components[0].layers, 1);
    EXPECT_EQ(d.components[0].q_tokens, (std::vector<std::string>{"Hi", "!"}));
    EXPECT_EQ(d.components[0].at(0, 0)(1, 1), 0.75f);
}

TEST(CircuitsVis, TwoDimensionalWithoutTokens) {
    const AttentionData d =
        io::parse_attention_json(R"({"attention": [[1, 0], [0.5, 0.5]]})", "c.json");
    EXPECT_EQ(d.components[0].heads, 1);
    EXPECT_EQ(d.components[0].q_tokens, (std::vector<std::string>{"0", "1"}));
}

TEST(AttentionJson, ErrorsNameTheJsonPath) {
    const auto msg = io_test::error_of([] {
        io::parse_attention_json(
            R"({"attention": [{"attn": [[[[1, 0], [1]]]], "left_text": ["a", "b"], "right_text": ["a", "b"]}]})",
            "x.json");
    });
    EXPECT_EQ(msg, "x.json: attention[0].attn[0][0][1] has 1 entries, expected 2");
    const auto wrong = io_test::error_of([] {
        io::parse_attention_json(
            R"({"attention": [{"attn": [[[[1, 0], [0, true]]]], "left_text": ["a", "b"], "right_text": ["a", "b"]}]})",
            "y.json");
    });
    EXPECT_EQ(wrong, "y.json: attention[0].attn[0][0][1][1] is a boolean, expected a number");
}

}  // namespace
