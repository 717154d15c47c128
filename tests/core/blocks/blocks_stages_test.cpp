// The attention block reads a head's score stages as the forward of record derives them
// (head_score_stages): its logits are score_stages' masked scores to the bit (its reverse
// through the tempering: blocks_vjp_test).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "attn/attention/attention.hpp"
#include "attn/attention/score_stages.hpp"
#include "attn/blocks/attention.hpp"
#include "blocks_fd_util.hpp"

namespace {

using namespace attn;
using namespace attn::blocks;
using blocks_fd::normal;

/// Parameters with every shaped stage: a soft-cap, a per-head position bias and τ = 0.7.
AttentionParams shaped_params(std::mt19937& rng, Index n) {
    AttentionParams p;
    p.softcap = 2.5f;
    p.temperature = 0.7f;
    auto bias = std::make_shared<PositionBias>();
    for (int h = 0; h < 2; ++h)
        bias->per_head.push_back(normal(rng, n, n, 0.8).cast<float>());
    p.bias = bias;
    p.bias_head = 1;
    return p;
}

TEST(BlocksStages, HeadLogitIsScoreStagesMaskedToTheBit) {
    std::mt19937 rng(31);
    const Index n = 6;
    const AttentionParams p = shaped_params(rng, n);
    const ScoreStages st = head_score_stages(8.f, p);
    ASSERT_TRUE(st.shaped());
    ASSERT_NE(st.tempering, 1.f);
    const HeadSpec<float> spec = HeadSpec<float>::from(st, n, n);
    EXPECT_EQ(spec.tempering, st.tempering);
    // Raw scores wide enough that the soft-cap bends them.
    const Matrix raw = (normal(rng, n, n) * 9.0).cast<float>();
    std::vector<float> masked(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) {
        score_stages(st, raw.row(i).data(), i, 0, n, nullptr, StageRow{.masked = masked.data()});
        for (Index j = 0; j < n; ++j)
            EXPECT_EQ(std::bit_cast<std::uint32_t>(head_logit(spec, raw(i, j), i, j)),
                      std::bit_cast<std::uint32_t>(masked[std::size_t(j)]))
                << "query " << i << ", key " << j;
    }
}

TEST(BlocksStages, SpecFromStagesIsTheForwardOfRecord) {
    // The block's head and attn::attend agree on a shaped head's weights (the same logits; the
    // softmaxes round apart).
    std::mt19937 rng(32);
    const Index n = 6, d = 8;
    AttentionParams p = shaped_params(rng, n);
    p.mask.kind = MaskKind::Causal;
    const Matrix q = normal(rng, n, d).cast<float>(), k = normal(rng, n, d).cast<float>(),
                 v = normal(rng, n, 3).cast<float>();
    const HeadResult r = attend(q, k, v, p);
    HeadSpec<float> s = HeadSpec<float>::from(r, n, n);
    s.allowed = build_mask(p.mask, n, n);
    const HeadForward<float> f = head_forward<float>(q, k, v, s);
    EXPECT_LT((f.weights - r.weights).cwiseAbs().maxCoeff(), 2e-6f);
    EXPECT_LT((f.out - r.output).cwiseAbs().maxCoeff(), 1e-5f);
}

TEST(BlocksStages, HardTemperatureIsTheSoftmaxOfTheScaleAlone) {
    std::mt19937 rng(33);
    AttentionParams p = shaped_params(rng, 4);
    p.temperature = 0.f;
    const HeadSpec<float> s = HeadSpec<float>::from(head_score_stages(4.f, p), 4, 4);
    EXPECT_EQ(s.multiplier, 0.5f);
    EXPECT_EQ(s.tempering, 1.f);
}

}  // namespace
