// Sessions that travel: data paths relative to the session, embedded data, and BertViz's
// default filter and component names. GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "attn/io/json/attention_json.hpp"
#include "attn/io/session/session.hpp"
#include "attn/util/error.hpp"

namespace {

std::string fixture(const char* name) {
    return std::string(ATTN_FIXTURES_DIR) + "/" + name;
}

/// A BertViz sentence-pair payload: "A1 A2" + "B1"; every block a slice of "all".
std::string sentencePair() {
    return R"({"attention": {
      "all": {"attn": [[[[0.5, 0.25, 0.25], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]]],
              "left_text": ["A1", "A2", "B1"], "right_text": ["A1", "A2", "B1"]},
      "aa": {"attn": [[[[0.5, 0.25], [0.2, 0.3]]]], "left_text": ["A1", "A2"],
             "right_text": ["A1", "A2"]},
      "ab": {"attn": [[[[0.25], [0.5]]]], "left_text": ["A1", "A2"], "right_text": ["B1"]},
      "ba": {"attn": [[[[0.1, 0.1]]]], "left_text": ["B1"], "right_text": ["A1", "A2"]},
      "bb": {"attn": [[[[0.8]]]], "left_text": ["B1"], "right_text": ["B1"]}},
      "default_filter": "all"})";
}

}  // namespace

TEST(SessionTravel, RelativeDataPathsAreComputedFromTheSessionFolder) {
    using attn::io::relative_data_path;
    EXPECT_EQ(relative_data_path("/a/s.attnscope", "/a/d.npz"), "d.npz");
    EXPECT_EQ(relative_data_path("/a/s.attnscope", "/a/data/d.npz"), "data/d.npz");
    EXPECT_EQ(relative_data_path("/a/sessions/s.attnscope", "/a/data/d.npz"), "../data/d.npz");
    EXPECT_EQ(relative_data_path("/x/y/z/s.attnscope", "/d.npz"), "../../../d.npz");
    EXPECT_EQ(relative_data_path("/a/./b/../s.attnscope", "/a/d.npz"), "d.npz");
    EXPECT_EQ(relative_data_path("s.attnscope", "/abs/d.npz"), "/abs/d.npz");  // cannot relate
    // Resolving the result from the session gives the data file back.
    attn::io::Session s;
    s.data_path = relative_data_path("/a/sessions/s.attnscope", "/a/data/d.npz");
    EXPECT_EQ(attn::io::resolved_data_path("/a/sessions/s.attnscope", s),
              "/a/sessions/../data/d.npz");
}

TEST(SessionTravel, EmbeddedDataRoundTripsExactlyAndNeedsNoFile) {
    auto data = std::make_shared<attn::AttentionData>(
        attn::io::parse_attention_json(sentencePair(), "pair.json"));
    attn::io::Session s;
    s.spec.data = data;
    s.spec.component = 2;  // "ab"
    s.embed_data = true;
    const std::string text = attn::io::session_to_json(s);
    EXPECT_NE(text.find("\"embedded\""), std::string::npos);
    const attn::io::Session back = attn::io::parse_session(text, "s.attnscope");
    ASSERT_TRUE(back.spec.data);
    EXPECT_TRUE(back.embed_data);
    EXPECT_EQ(back.data_path, "");
    EXPECT_EQ(back.spec.component, 2);
    ASSERT_EQ(back.spec.data->components.size(), 5u);
    for (std::size_t i = 0; i < 5; ++i) {
        const auto& a = data->components[i];
        const auto& b = back.spec.data->components[i];
        EXPECT_EQ(a.name, b.name);
        EXPECT_EQ(a.q_tokens, b.q_tokens);
        EXPECT_EQ(a.k_tokens, b.k_tokens);
        ASSERT_EQ(a.mats.size(), b.mats.size());
        for (std::size_t m = 0; m < a.mats.size(); ++m)
            EXPECT_EQ(a.mats[m], b.mats[m]);  // bit-exact floats
    }
    EXPECT_EQ(attn::io::session_to_json(back), text);  // a fixed point, as the fuzzer checks
}

TEST(SessionTravel, BrokenEmbeddedDataNamesThePath) {
    attn::io::Session s;
    s.spec.data = std::make_shared<attn::AttentionData>(
        attn::io::parse_attention_json(sentencePair(), "pair.json"));
    s.embed_data = true;
    std::string text = attn::io::session_to_json(s);
    // Make the "ab" block 2×2 while its tokens say 2×1.
    const std::string from = "[0.25],\n", to = "[0.25, 0.5],\n";
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, from.size(), to);
    try {
        attn::io::parse_session(text, "s.attnscope");
        FAIL() << "a ragged embedded matrix was accepted";
    } catch (const attn::FormatError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("s.attnscope"), std::string::npos) << what;
        EXPECT_NE(what.find("data.embedded.components[2].matrices[0]"), std::string::npos) << what;
    }
}

TEST(BertViz, SentencePairsOpenOnTheDefaultFilterInBertVizOrder) {
    const attn::AttentionData d = attn::io::parse_attention_json(sentencePair(), "pair.json");
    ASSERT_EQ(d.components.size(), 5u);
    EXPECT_EQ(d.components[0].name, "all");
    EXPECT_EQ(d.components[1].name, "aa");
    EXPECT_EQ(d.components[4].name, "bb");
    EXPECT_EQ(d.components[std::size_t(d.default_component)].name, "all");
    EXPECT_EQ(attn::io::component_title("aa"), "Sentence A → A");
    EXPECT_EQ(attn::io::component_title("ba"), "Sentence B → A");
    EXPECT_EQ(attn::io::component_title("all"), "All tokens");
    EXPECT_EQ(attn::io::component_title("Encoder"), "Encoder");
    EXPECT_EQ(attn::io::component_row_note("all"), "");
    EXPECT_NE(attn::io::component_row_note("ab").find("sum to less than 1"), std::string::npos);
    // The note is true of the fixture: an A query's row in "ab" holds what "all" gives to B.
    EXPECT_FLOAT_EQ(d.components[2].mats[0](0, 0), d.components[0].mats[0](0, 2));
    EXPECT_LT(d.components[2].mats[0].row(0).sum(), 1.f);

    // A default_filter naming a block is honoured too.
    std::string bb = sentencePair();
    bb.replace(bb.find("\"default_filter\": \"all\""), 23, "\"default_filter\": \"bb\"");
    const attn::AttentionData d2 = attn::io::parse_attention_json(bb, "pair.json");
    EXPECT_EQ(d2.components[std::size_t(d2.default_component)].name, "bb");
}

TEST(BertViz, RealPayloadsOpenOnAll) {
    for (const char* f : {"bertviz_distilbert_headview.json", "bertviz_gpt2_headview.json"}) {
        const attn::AttentionData d = attn::io::load_attention_json(fixture(f));
        EXPECT_EQ(d.components[std::size_t(d.default_component)].name, "all") << f;
    }
}
