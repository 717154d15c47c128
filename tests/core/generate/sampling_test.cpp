// AttnScope — choosing the next token (attn::gen::choose) on hand-computed distributions:
// top-p keeps the smallest set whose mass reaches p, top-k before it, temperature, the seeded
// draw against the cumulative probabilities, ties, and refused input. GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "attn/generate/sampling.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::gen::Choice;
using attn::gen::Sampling;

/// Ids 0…3 with probabilities 0.15, 0.5, 0.05, 0.3: most probable first, 1, 3, 0, 2.
attn::Vector logits() {
    attn::Vector l(4);
    l << std::log(0.15f), std::log(0.5f), std::log(0.05f), std::log(0.3f);
    return l.array() + 2.f;  // a shift changes nothing
}

Sampling sample(float top_p, int top_k = 0, float temperature = 1.f) {
    Sampling s;
    s.greedy = false;
    s.top_p = top_p;
    s.top_k = top_k;
    s.temperature = temperature;
    s.seed = 7;
    return s;
}

/// The sampling probabilities of ids 1, 3, 0, 2 (the order of choice.top).
void expectProbabilities(const Choice& c, std::vector<double> p, int kept) {
    ASSERT_EQ(c.top.size(), 4u);
    EXPECT_EQ(c.kept, kept);
    const std::int32_t order[] = {1, 3, 0, 2};
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(c.top[i].id, order[i]);
        EXPECT_NEAR(c.top[i].probability, p[i], 1e-6) << "candidate " << i;
        EXPECT_EQ(c.top[i].kept, int(i) < kept) << "candidate " << i;
    }
}

TEST(Sampling, TopPKeepsTheSmallestSetWhoseMassReachesP) {
    expectProbabilities(attn::gen::choose(logits(), sample(0.5f), 0), {1, 0, 0, 0}, 1);
    expectProbabilities(attn::gen::choose(logits(), sample(0.7f), 0), {0.625, 0.375, 0, 0}, 2);
    // 0.5 + 0.3 reaches 0.8 exactly: two tokens, not three.
    expectProbabilities(attn::gen::choose(logits(), sample(0.8f), 0), {0.625, 0.375, 0, 0}, 2);
    expectProbabilities(attn::gen::choose(logits(), sample(0.81f), 0),
                        {0.5 / 0.95, 0.3 / 0.95, 0.15 / 0.95, 0}, 3);
    expectProbabilities(attn::gen::choose(logits(), sample(1.f), 0), {0.5, 0.3, 0.15, 0.05}, 4);
}

TEST(Sampling, TopKComesFirstAndTopPSeesWhatItLeft) {
    // Top-3 renormalised: 0.526, 0.316, 0.158 (cumulative 0.526, 0.842, 1).
    expectProbabilities(attn::gen::choose(logits(), sample(1.f, 3), 0),
                        {0.5 / 0.95, 0.3 / 0.95, 0.15 / 0.95, 0}, 3);
    expectProbabilities(attn::gen::choose(logits(), sample(0.8f, 3), 0), {0.625, 0.375, 0, 0}, 2);
    expectProbabilities(attn::gen::choose(logits(), sample(0.9f, 3), 0),
                        {0.5 / 0.95, 0.3 / 0.95, 0.15 / 0.95, 0}, 3);
    expectProbabilities(attn::gen::choose(logits(), sample(1.f, 9), 0), {0.5, 0.3, 0.15, 0.05}, 4);
}

TEST(Sampling, TemperatureFlattensBeforeTheCut) {
    // τ = 2: p ∝ √p.
    const double r[] = {std::sqrt(0.5), std::sqrt(0.3), std::sqrt(0.15), std::sqrt(0.05)};
    const double sum = r[0] + r[1] + r[2] + r[3];
    expectProbabilities(attn::gen::choose(logits(), sample(1.f, 0, 2.f), 0),
                        {r[0] / sum, r[1] / sum, r[2] / sum, r[3] / sum}, 4);
    // The log-probabilities stay the model's (τ = 1) whatever the sampling.
    const Choice c = attn::gen::choose(logits(), sample(1.f, 0, 2.f), 0);
    EXPECT_NEAR(c.top[0].logprob, std::log(0.5), 1e-6);
    EXPECT_NEAR(c.top[3].logprob, std::log(0.05), 1e-6);
}

TEST(Sampling, TheDrawFollowsTheCumulativeProbabilities) {
    int ones = 0;
    for (std::int64_t pos = 0; pos < 400; ++pos) {
        const Choice c = attn::gen::choose(logits(), sample(0.7f), pos);
        const double u = attn::gen::draw_uniform(7, pos);
        EXPECT_GE(u, 0.0);
        EXPECT_LT(u, 1.0);
        EXPECT_EQ(c.id, u < 0.625 ? 1 : 3) << "position " << pos << ", u " << u;
        EXPECT_NEAR(c.logprob, std::log(c.id == 1 ? 0.5 : 0.3), 1e-6);
        ones += c.id == 1;
    }
    // 400 draws of p = 0.625: 250 ± 4.4 standard deviations.
    EXPECT_GT(ones, 208);
    EXPECT_LT(ones, 292);
    // A pure function of (seed, position): again the same; another seed another stream.
    EXPECT_EQ(attn::gen::draw_uniform(7, 3), attn::gen::draw_uniform(7, 3));
    EXPECT_NE(attn::gen::draw_uniform(7, 3), attn::gen::draw_uniform(8, 3));
    EXPECT_NE(attn::gen::draw_uniform(7, 3), attn::gen::draw_uniform(7, 4));
}

TEST(Sampling, GreedyTakesTheLowestIdOfEqualMaxima) {
    attn::Vector l(5);
    l << 0.f, 3.f, -1.f, 3.f, 2.f;
    Sampling s;  // greedy by default
    const Choice c = attn::gen::choose(l, s, 0);
    EXPECT_EQ(c.id, 1);
    EXPECT_EQ(c.kept, 1);
    EXPECT_EQ(c.top[1].id, 3);
    EXPECT_FALSE(c.top[1].kept);
    EXPECT_FLOAT_EQ(c.top[0].probability, 1.f);
    EXPECT_EQ(attn::gen::choose(l, s, 0, 2).top.size(), 2u);
    // −∞ is a token the model rules out, never chosen.
    l << -std::numeric_limits<float>::infinity(), 1.f, 0.f, 0.f, 0.f;
    for (std::int64_t pos = 0; pos < 50; ++pos)
        EXPECT_NE(attn::gen::choose(l, sample(1.f), pos).id, 0);
}

TEST(Sampling, RefusesWhatCannotBeSampled) {
    attn::Vector l(3);
    l << 0.f, std::numeric_limits<float>::quiet_NaN(), 1.f;
    EXPECT_THROW(attn::gen::choose(l, Sampling{}, 0), attn::ArgumentError);
    l.setConstant(-std::numeric_limits<float>::infinity());
    EXPECT_THROW(attn::gen::choose(l, Sampling{}, 0), attn::ArgumentError);
    EXPECT_THROW(attn::gen::choose(attn::Vector(), Sampling{}, 0), attn::ArgumentError);
    EXPECT_THROW(attn::gen::choose(logits(), sample(1.5f), 0), attn::ArgumentError);
    EXPECT_THROW(attn::gen::choose(logits(), sample(1.f, -2), 0), attn::ArgumentError);
    EXPECT_THROW(attn::gen::choose(logits(), sample(1.f, 0, std::nanf("")), 0),
                 attn::ArgumentError);
    const std::vector<float> lp = attn::gen::log_softmax(logits());
    EXPECT_NEAR(lp[1], std::log(0.5), 1e-6);
    EXPECT_NEAR(std::exp(lp[0]) + std::exp(lp[1]) + std::exp(lp[2]) + std::exp(lp[3]), 1.0, 1e-6);
}

}  // namespace
