// A file's own weights tell whether its raw scores need the causal mask (GPT-2: yes).
#include <gtest/gtest.h>

#include "../io_test_util.hpp"
#include "attn/io/infer_mask.hpp"
#include "attn/io/load.hpp"
#include "attn/util/error.hpp"

namespace {

using namespace attn;

AttentionComponent component(bool scores, std::vector<Matrix> mats) {
    AttentionComponent c;
    c.are_scores = scores;
    c.layers = 1;
    c.heads = static_cast<Index>(mats.size());
    c.mats = std::move(mats);
    return c;
}

TEST(InferMask, Gpt2ScoresNeedTheCausalMask) {
    const AttentionData d = io::load_attention(io_test::real("gpt2_small_ex0.npz"));
    EXPECT_TRUE(io::scores_need_causal_mask(d));
}

TEST(InferMask, EncoderWeightsAloneSayNothing) {
    // BertViz payloads carry weights only: there are no scores a mask could apply to.
    const AttentionData d = io::load_attention(io_test::real("bertviz_gpt2_headview.json"));
    EXPECT_FALSE(io::scores_need_causal_mask(d));
}

TEST(InferMask, OneNonZeroAboveTheDiagonalIsEnough) {
    Matrix lower(3, 3);
    lower << 1, 0, 0, .5f, .5f, 0, .2f, .3f, .5f;
    Matrix leak = lower;
    leak(0, 2) = 1e-30f;
    AttentionData d;
    d.components.push_back(component(true, {Matrix::Zero(3, 3)}));
    d.components.push_back(component(false, {lower, lower}));
    EXPECT_TRUE(io::scores_need_causal_mask(d));
    d.components[1] = component(false, {lower, leak});
    EXPECT_FALSE(io::scores_need_causal_mask(d));
    // Weights without scores: nothing to mask.
    d.components.erase(d.components.begin());
    d.components[0] = component(false, {lower});
    EXPECT_FALSE(io::scores_need_causal_mask(d));
}

}  // namespace
