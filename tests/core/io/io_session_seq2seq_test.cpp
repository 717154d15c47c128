// AttnScope — sessions of a model's run: a decoder-only model's sites are [layer, head] and its
// session reads and writes byte for byte as before the sites had a component; an
// encoder–decoder's session keeps the component shown, both sentences and the run's controls,
// its sites named ["cross", layer, head], and refuses a bad component by its JSON path.
// GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "../io_test_util.hpp"
#include "attn/io/session/session.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::model::Component;

std::string committed(const char* name) {
    std::ifstream in(io_test::data(std::string("sessions/") + name), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// TEXT with its first FROM replaced by TO.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

/// The message parse_session throws for TEXT, or "" when it reads it.
std::string refusal(const std::string& text) {
    try {
        attn::io::parse_session(text, "s.attnscope");
    } catch (const attn::FormatError& e) {
        return e.what();
    }
    return {};
}

TEST(SessionSites, ADecoderOnlyModelsSessionIsReadAndWrittenByteForByte) {
    const std::string text = committed("model_interventions.attnscope");
    const attn::io::Session s = attn::io::parse_session(text, "model_interventions.attnscope");
    EXPECT_FALSE(s.seq2seq);
    // Its sites are the one stack's, sorted as written.
    const attn::model::Interventions& iv = s.spec.interventions;
    ASSERT_EQ(iv.ablated.size(), 2u);
    EXPECT_EQ(iv.ablated[1], (attn::model::Site{attn::model::kSingleStack, 2, 1}));
    ASSERT_EQ(iv.knockouts.size(), 2u);
    EXPECT_EQ(iv.knockouts[0], (attn::model::Knockout{{Component::Decoder, 1, 0}, -1, 2}));
    EXPECT_EQ(iv.ablation, attn::model::AblationMode::Mean);
    EXPECT_EQ(s.spec.model_layers, (std::vector<int>{0, 2}));
    EXPECT_EQ(s.spec.layer, 2);
    EXPECT_EQ(attn::io::session_to_json(s), text);
}

TEST(SessionSites, AnEncoderDecodersRunRoundTripsWithItsComponentAndSentences) {
    attn::io::Session s;
    s.spec.text = "The house is small.";
    s.spec.layer = 1;
    s.model_path = "/models/opus-mt-en-de";
    attn::io::Seq2SeqSession run;
    run.component = Component::Encoder;
    run.target = "Das Haus ist klein.";
    run.target_ids = {12, 7, 33, 0};
    run.controls.scale = false;
    // As typed, not sorted: the Translation dock shows them in this order.
    run.controls.ablate = {{Component::Cross, 0, 1}, {Component::Encoder, 1, 0}};
    run.controls.ablation = attn::model::AblationMode::Mean;
    run.controls.knockouts = {{{Component::Decoder, 1, 1}, -1, 2}};
    s.seq2seq = run;
    const std::string text = attn::io::session_to_json(s);
    // The hand-written example of docs/session-format.md is exactly this session.
    EXPECT_EQ(text, committed("marian_run.attnscope"));
    const attn::io::Session back = attn::io::parse_session(text, "marian_run.attnscope");
    ASSERT_TRUE(back.seq2seq);
    EXPECT_EQ(*back.seq2seq, run);
    EXPECT_EQ(back.spec.text, "The house is small.");
    EXPECT_EQ(back.spec.layer, 1);
    EXPECT_EQ(back.model_path, "/models/opus-mt-en-de");
    // The decoder-only keys stay out, and the run's sites are not the scene's.
    EXPECT_TRUE(back.spec.interventions.empty());
    EXPECT_EQ(text.find("\"layers\""), std::string::npos);
    EXPECT_EQ(text.find("\"identity\""), std::string::npos);
    EXPECT_EQ(attn::io::session_to_json(back), text);
    // With nothing changed the run writes only its sentences and what it shows.
    s.seq2seq->controls = {};
    s.seq2seq->target_ids.clear();
    const std::string plain = attn::io::session_to_json(s);
    EXPECT_EQ(plain.find("interventions"), std::string::npos);
    EXPECT_EQ(plain.find("target_ids"), std::string::npos);
    EXPECT_EQ(plain.find("\"scale\": false"), std::string::npos);
    EXPECT_EQ(*attn::io::parse_session(plain, "plain").seq2seq, *s.seq2seq);
}

TEST(SessionSites, ABadComponentIsRefusedByItsPath) {
    const std::string text = committed("marian_run.attnscope");
    std::string bad = replaced(text, "\"component\": \"encoder\"", "\"component\": \"middle\"");
    EXPECT_EQ(refusal(bad),
              "s.attnscope: model.component is \"middle\", not \"encoder\", "
              "\"decoder\" or \"cross\"");
    bad = replaced(text, "[\"cross\", 0, 1]", "[\"crux\", 0, 1]");
    EXPECT_EQ(refusal(bad),
              "s.attnscope: model.interventions.ablated names the component "
              "\"crux\", not \"encoder\", \"decoder\" or \"cross\"");
    bad = replaced(text, "[\"cross\", 0, 1]", "[0, 1]");
    EXPECT_EQ(refusal(bad),
              "s.attnscope: model.interventions.ablated holds a list, expected "
              "lists of a component (\"encoder\", \"decoder\" or \"cross\") and 2 "
              "integers");
    // A decoder-only model's sites name no component.
    bad = replaced(committed("model_interventions.attnscope"), "[0, 1]", "[\"cross\", 0, 1]");
    EXPECT_EQ(refusal(bad),
              "s.attnscope: model.interventions.ablated names the component "
              "\"cross\": a model of one stack's sites are [layer, head] (an "
              "encoder–decoder's session has model.component)");
}

}  // namespace
