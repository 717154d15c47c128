// AttnScope — a model whose embedding has more rows than its tokenizer has tokens (Qwen2.5:
// 151 936 rows for 151 669 tokens). llama_tiny.py --tokens 40 writes a Qwen2 folder of 48 rows
// whose tokenizer has 40 ids, the 8 rows past it made the likeliest ids at every position by hand
// (loud_padding): generation, greedy and sampled, the top-k lists and the logit lens still never
// pick one, the chosen id is the argmax over the 40 real ones, and a padding id's text reads
// "<id N>". GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "../io_test_util.hpp"
#include "attn/generate/generate.hpp"
#include "attn/interventions/lens.hpp"
#include "attn/models/families.hpp"
#include "attn/models/vocabulary.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::Index;

constexpr int kTokens = 40;         // the tokenizer's ids
constexpr int kEmbeddingRows = 48;  // the model's vocab_size

/// The index of the largest of LOGITS[0, n) (ties: the lowest).
Index argmax(const attn::Vector& logits, Index n) {
    Index best = 0;
    for (Index i = 1; i < n; ++i)
        if (logits[i] > logits[best]) best = i;
    return best;
}

class PaddedVocab : public ::testing::Test {
  protected:
    void SetUp() override {
        const std::string command = "/usr/bin/python3 " ATTN_LLAMA_TINY " " + dir_.path.string() +
                                    " 11 qwen2 --tokens " + std::to_string(kTokens);
        ASSERT_EQ(std::system(command.c_str()), 0) << command;
        folder_ = attn::model::open_folder(dir_.path.string());
        prompt_ = folder_.tokenizer->encode("the cat sat on");
        ASSERT_EQ(prompt_.size(), 4u);
    }
    const attn::model::Model& model() const { return *folder_.model; }
    /// The model's own logits after IDS, padding and all.
    attn::Vector rawLogits(const std::vector<std::int32_t>& ids) const {
        return attn::model::run(model(), ids).logits;
    }

    io_test::TempDir dir_;
    attn::model::ModelFolder folder_;
    std::vector<std::int32_t> prompt_;
};

TEST_F(PaddedVocab, TheFolderKnowsWhichIdsArePadding) {
    const attn::model::ModelInfo& info = model().info();
    EXPECT_EQ(info.vocab, kEmbeddingRows);
    EXPECT_EQ(folder_.tokenizer->vocab_size(), std::size_t(kTokens));
    EXPECT_EQ(attn::model::text_vocab(info), kTokens);
    EXPECT_FALSE(attn::model::is_padding(info, kTokens - 1));
    EXPECT_TRUE(attn::model::is_padding(info, kTokens));
    EXPECT_TRUE(attn::model::is_padding(info, kEmbeddingRows - 1));
    EXPECT_FALSE(attn::model::is_padding(info, kEmbeddingRows));  // outside the model altogether
    // The construction holds: the model itself ranks a padding row first after the prompt.
    EXPECT_GE(argmax(rawLogits(prompt_), kEmbeddingRows), kTokens);
}

TEST_F(PaddedVocab, GreedyGenerationChoosesTheLikeliestRealToken) {
    attn::gen::GenerateOptions o;
    o.tokens = 8;
    o.stop_at_eos = false;
    const attn::gen::Generation g = attn::gen::generate(model(), *folder_.tokenizer, prompt_, o);
    ASSERT_EQ(g.choices.size(), 8u);
    EXPECT_EQ(g.stop, attn::gen::StopReason::Tokens);
    for (std::size_t i = 0; i < g.choices.size(); ++i) {
        const attn::gen::Choice& c = g.choices[i];
        const std::vector<std::int32_t> before(g.ids.begin(),
                                               g.ids.begin() + std::ptrdiff_t(g.prompt + i));
        const attn::Vector raw = rawLogits(before);
        // Without the rule this step would have chosen the padding row the model ranks first.
        EXPECT_GE(argmax(raw, kEmbeddingRows), kTokens) << "step " << i;
        EXPECT_EQ(c.id, argmax(raw, kTokens)) << "step " << i;
        EXPECT_EQ(g.ids[g.prompt + i], c.id);
        ASSERT_EQ(c.top.size(), 10u);
        for (const attn::gen::Candidate& t : c.top)
            EXPECT_LT(t.id, kTokens) << "step " << i;
        // The log-probability is over the 40 ids a text stands for.
        double sum = 0;
        for (Index k = 0; k < kTokens; ++k)
            sum += std::exp(double(raw[k]) - double(raw[c.id]));
        EXPECT_NEAR(c.logprob, -std::log(sum), 1e-4) << "step " << i;
        EXPECT_NEAR(g.logprobs[g.prompt + i], c.logprob, 1e-6);
    }
    EXPECT_NO_THROW((void)folder_.tokenizer->decode(g.ids));
}

TEST_F(PaddedVocab, SamplingNeverDrawsAPaddingId) {
    for (const int topK : {0, 5, 45})
        for (std::uint64_t seed = 0; seed < 4; ++seed) {
            attn::gen::GenerateOptions o;
            o.tokens = 6;
            o.stop_at_eos = false;
            o.sampling.greedy = false;
            o.sampling.temperature = 2.f;
            o.sampling.top_k = topK;
            o.sampling.seed = seed;
            const attn::gen::Generation g =
                attn::gen::generate(model(), *folder_.tokenizer, prompt_, o);
            ASSERT_EQ(g.choices.size(), 6u);
            for (const attn::gen::Choice& c : g.choices) {
                EXPECT_LT(c.id, kTokens) << "top-k " << topK << " seed " << seed;
                EXPECT_LE(c.kept, topK == 5 ? 5 : kTokens);
                for (const attn::gen::Candidate& t : c.top)
                    EXPECT_LT(t.id, kTokens);
            }
        }
}

TEST_F(PaddedVocab, TopTokensAndTheLensListNoPaddingId) {
    const attn::model::Run run = attn::model::run(model(), prompt_);
    const std::vector<attn::NextToken> top = attn::model::top_next_tokens(run, folder_, 10);
    ASSERT_EQ(top.size(), 10u);
    EXPECT_EQ(top[0].id, argmax(run.logits, kTokens));
    for (const attn::NextToken& t : top) {
        EXPECT_LT(t.id, kTokens);
        EXPECT_EQ(t.text, folder_.tokenizer->token_text(t.id));
    }
    // Probabilities over the 40 ids: all 40 of them sum to 1.
    const std::vector<attn::NextToken> all =
        attn::model::top_next_tokens(run, folder_, kEmbeddingRows);
    ASSERT_EQ(all.size(), std::size_t(kTokens));
    double sum = 0;
    for (const attn::NextToken& t : all)
        sum += t.probability;
    EXPECT_NEAR(sum, 1.0, 1e-5);

    const attn::interv::LensTable lens = attn::interv::lens_table(model(), run);
    for (const attn::interv::LensCell& cell : lens.cells)
        for (const std::int32_t id : cell.ids)
            EXPECT_LT(id, kTokens);
    // The last row is the model's own prediction: the same first token as the top list.
    EXPECT_EQ(lens.at(lens.layers - 1, lens.positions - 1).ids[0], top[0].id);
}

TEST_F(PaddedVocab, APaddingIdReadsAsItsNumber) {
    const attn::model::Tokenizer& tok = *folder_.tokenizer;
    EXPECT_EQ(tok.token_text(45), "<id 45>");
    EXPECT_EQ(tok.display_tokens({1, 45, 2}), (std::vector<std::string>{"the", "<id 45>", "cat"}));
    EXPECT_EQ(tok.decode({1, 2}), "the cat");
    EXPECT_EQ(tok.decode({1, 45, 2}), "the<id 45>cat");
    EXPECT_THROW((void)tok.decode({-1}), attn::ArgumentError);
}

}  // namespace
