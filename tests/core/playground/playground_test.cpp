// Tests of the 2-D playground's computation and presets.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "attn/attention/kernel.hpp"
#include "attn/playground/playground.hpp"
#include "attn/util/error.hpp"

namespace {

using P = Eigen::Vector2d;

attn::PlaygroundState random_state(std::mt19937& gen, int nq, int nk) {
    std::normal_distribution<double> nd(0, 1.5);
    attn::PlaygroundState s;
    for (int i = 0; i < nq; ++i)
        s.queries.emplace_back(nd(gen), nd(gen));
    for (int j = 0; j < nk; ++j) {
        s.keys.emplace_back(nd(gen), nd(gen));
        s.values.emplace_back(nd(gen), nd(gen));
    }
    return s;
}

TEST(Playground, WorkedExampleReproducesTheFourDimensionalWeights) {
    const auto s = attn::playground_preset(attn::PlaygroundPreset::WorkedExample);
    const auto r = attn::compute_playground(s);
    ASSERT_EQ(r.head.weights.cols(), 3);
    EXPECT_NEAR(r.head.weights(0, 0), 0.5065, 1e-4);
    EXPECT_NEAR(r.head.weights(0, 1), 0.1863, 1e-4);
    EXPECT_NEAR(r.head.weights(0, 2), 0.3072, 1e-4);
    EXPECT_NEAR(r.outputs[0].x(), 18.007, 1e-3);
    EXPECT_NEAR(r.outputs[0].y(), 0.0, 1e-6);
    // The scores after the √(N/2) factor are the 4-D dot products 2, 0, 1.
    EXPECT_NEAR(r.head.raw(0, 0), 2.0, 1e-5);
    EXPECT_NEAR(r.head.raw(0, 1), 0.0, 1e-5);
    EXPECT_NEAR(r.head.raw(0, 2), 1.0, 1e-5);
    EXPECT_NEAR(r.head.scale_factor, 0.5, 1e-7);
    EXPECT_TRUE(r.inside[0]);
    EXPECT_EQ(r.hull.size(), 2u);  // collinear values: the hull is a segment
}

TEST(Playground, EqualsAttendInTwoDimensions) {
    std::mt19937 gen(5);
    for (int trial = 0; trial < 20; ++trial) {
        auto s = random_state(gen, 4, 7);
        s.as_if_dk = 2;  // the plain 2-D case: multiplier 1, scaling by 1/√2
        const auto r = attn::compute_playground(s);
        attn::Matrix Q(4, 2), K(7, 2), V(7, 2);
        for (int i = 0; i < 4; ++i)
            Q.row(i) = s.queries[static_cast<std::size_t>(i)].cast<float>();
        for (int j = 0; j < 7; ++j) {
            K.row(j) = s.keys[static_cast<std::size_t>(j)].cast<float>();
            V.row(j) = s.values[static_cast<std::size_t>(j)].cast<float>();
        }
        const auto h = attn::attend(Q, K, V, attn::AttentionParams{});
        EXPECT_LT((h.weights - r.head.weights).cwiseAbs().maxCoeff(), 1e-6);
        // And it is Nadaraya–Watson with the exp-dot kernel.
        const attn::MatrixD y = attn::nadaraya_watson(Q.cast<double>(), K.cast<double>(),
                                                      V.cast<double>(), attn::exp_dot_kernel_dk(2));
        for (int i = 0; i < 4; ++i)
            EXPECT_LT((y.row(i).transpose() - r.outputs[static_cast<std::size_t>(i)]).norm(), 1e-5);
    }
}

TEST(Playground, OutputsInsideHullForEveryScoreKind) {
    std::mt19937 gen(6);
    for (auto kind : {attn::ScoreKind::Dot, attn::ScoreKind::General, attn::ScoreKind::Additive,
                      attn::ScoreKind::Rbf}) {
        for (int nk : {1, 2, 3, 8, 64}) {
            auto s = random_state(gen, 8, nk);
            s.score = kind;
            s.W << 0.5, -1.0, 2.0, 0.3;
            s.as_if_dk = 64;
            s.scale = nk % 2 == 0;
            const auto r = attn::compute_playground(s);
            for (std::size_t i = 0; i < s.queries.size(); ++i) {
                EXPECT_TRUE(r.inside[i]) << static_cast<int>(kind) << " " << nk;
                EXPECT_NEAR(r.hull_coords[i].sum(), 1.0, 1e-9);
            }
        }
    }
}

TEST(Playground, AsIfDkSaturatesWithoutScaling) {
    std::mt19937 gen(7);
    auto s = random_state(gen, 1, 6);
    s.scale = false;
    s.as_if_dk = 2;
    const double low = attn::compute_playground(s).head.weights.maxCoeff();
    s.as_if_dk = 4096;
    const double high = attn::compute_playground(s).head.weights.maxCoeff();
    EXPECT_GT(high, low);
    EXPECT_GT(high, 0.99);
    // With scaling, N does not change anything (the factors cancel).
    s.scale = true;
    const auto a = attn::compute_playground(s);
    s.as_if_dk = 2;
    const auto b = attn::compute_playground(s);
    EXPECT_LT((a.head.weights - b.head.weights).cwiseAbs().maxCoeff(), 1e-5);
    EXPECT_DOUBLE_EQ(attn::playground_multiplier(s), 1.0);
    s.score = attn::ScoreKind::Rbf;
    s.as_if_dk = 50;
    EXPECT_DOUBLE_EQ(attn::playground_multiplier(s), 1.0);
}

TEST(Playground, MaskingZeroesWeightAndFullyMaskedIsDefined) {
    std::mt19937 gen(8);
    auto s = random_state(gen, 2, 4);
    s.masked = {false, true};
    auto r = attn::compute_playground(s);
    EXPECT_EQ(r.head.weights(0, 1), 0.f);
    EXPECT_EQ(r.head.weights(1, 1), 0.f);
    EXPECT_NEAR(r.head.weights.row(0).sum(), 1.f, 1e-6);
    s.masked = {true, true, true, true};
    r = attn::compute_playground(s);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_TRUE(r.empty[i]);
        EXPECT_FALSE(r.inside[i]);
        EXPECT_EQ(r.outputs[i], P(0, 0));
        EXPECT_EQ(r.sampled[i], -1);
    }
    EXPECT_TRUE(r.head.weights.allFinite());
}

TEST(Playground, EmptyAndBadStates) {
    attn::PlaygroundState s;
    EXPECT_NO_THROW(attn::compute_playground(s));
    s.queries = {P(1, 1)};
    const auto r = attn::compute_playground(s);
    EXPECT_TRUE(r.empty[0]);
    s.keys = {P(0, 0)};
    EXPECT_THROW(attn::compute_playground(s), attn::ArgumentError);
    s.values = {P(0, 0)};
    s.as_if_dk = 0;
    EXPECT_THROW(attn::compute_playground(s), attn::ArgumentError);
    s.as_if_dk = 2;
    s.sigma = 0;
    EXPECT_THROW(attn::compute_playground(s), attn::ArgumentError);
}

TEST(Playground, HardSampleIsSeededAndFollowsWeights) {
    std::mt19937 gen(9);
    auto s = random_state(gen, 3, 5);
    const auto a = attn::compute_playground(s);
    const auto b = attn::compute_playground(s);
    EXPECT_EQ(a.sampled, b.sampled);
    for (int k : a.sampled)
        EXPECT_GE(k, 0);
    // Empirical frequencies over many seeds match α.
    std::vector<int> counts(5, 0);
    const int n = 20000;
    for (int seed = 0; seed < n; ++seed) {
        const int k = attn::sample_categorical(
            a.head.weights.row(0), attn::playground_uniform(static_cast<std::uint64_t>(seed), 0));
        ++counts[static_cast<std::size_t>(k)];
    }
    for (int j = 0; j < 5; ++j)
        EXPECT_NEAR(counts[static_cast<std::size_t>(j)] / double(n), a.head.weights(0, j), 0.015);
    Eigen::RowVectorXf z = Eigen::RowVectorXf::Zero(3);
    EXPECT_EQ(attn::sample_categorical(z, 0.5), -1);
}

TEST(Playground, RegressionCurvesAreNadarayaWatson) {
    auto s = attn::playground_preset(attn::PlaygroundPreset::TwoClusters);
    s.masked = {true};
    const auto c = attn::playground_regression(s, -3, 3, 61);
    ASSERT_EQ(c.xs.size(), 61);
    attn::VectorD k(5), v(5);
    for (int j = 1; j < 6; ++j) {
        k[j - 1] = s.keys[static_cast<std::size_t>(j)].x();
        v[j - 1] = s.values[static_cast<std::size_t>(j)].x();
    }
    const attn::VectorD rbf = attn::nadaraya_watson_1d(c.xs, k, v, attn::rbf_kernel(s.sigma));
    EXPECT_LT((rbf - c.rbf).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_NEAR(c.exp_dot_factor, 1.0 / std::sqrt(2.0), 1e-12);
    for (int i = 0; i < 61; ++i) {
        EXPECT_GE(c.rbf[i], v.minCoeff() - 1e-12);
        EXPECT_LE(c.exp_dot[i], v.maxCoeff() + 1e-12);
    }
}

TEST(Playground, EveryPresetComputesAndHasAName) {
    for (auto p : attn::playground_presets()) {
        EXPECT_FALSE(attn::playground_preset_name(p).empty());
        const auto s = attn::playground_preset(p);
        EXPECT_EQ(s.keys.size(), s.values.size());
        EXPECT_FALSE(s.queries.empty());
        const auto r = attn::compute_playground(s);
        for (bool in : r.inside)
            EXPECT_TRUE(in);
        EXPECT_TRUE(s == attn::playground_preset(p));
    }
    const auto sat =
        attn::compute_playground(attn::playground_preset(attn::PlaygroundPreset::Saturation));
    EXPECT_GT(sat.head.weights.row(0).maxCoeff(), 0.99);
    const auto dom =
        attn::compute_playground(attn::playground_preset(attn::PlaygroundPreset::OneDominantKey));
    EXPECT_GT(dom.head.weights(0, 0), 0.7);
}

}  // namespace
