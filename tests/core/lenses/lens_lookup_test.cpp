// Tests of the "lookup" and "low-rank" lenses.
#include <gtest/gtest.h>

#include <cmath>

#include "attn/lenses/common.hpp"
#include "attn/lenses/lookup.hpp"
#include "attn/lenses/low_rank.hpp"
#include "attn/util/random.hpp"

namespace {

using namespace attn;
using namespace attn::lenses;

TEST(LensLookup, SampleFrequenciesConvergeToAlpha) {
    VectorD alpha(4);
    alpha << 0.1, 0.2, 0.3, 0.4;
    Rng rng(1);
    const MatrixD V = rng.normal_matrix(4, 3).cast<double>();
    const HardLookup small = hard_lookup(alpha, V, 100, 11);
    const HardLookup big = hard_lookup(alpha, V, 100000, 11);
    // Binomial standard error at N = 1e5 is ≤ 0.0016; 0.01 is > 6σ.
    for (Index j = 0; j < 4; ++j)
        EXPECT_NEAR(big.frequencies[std::size_t(j)], alpha(j), 0.01);
    EXPECT_LT(big.errors.back(), small.errors.back());
    EXPECT_LT(big.errors.back(), 0.02);
    EXPECT_EQ(big.steps.back(), 100000);
    EXPECT_NEAR((big.exact - V.transpose() * alpha).norm(), 0.0, 1e-12);
}

TEST(LensLookup, TemperatureSweepGoesFromUniformToArgmax) {
    VectorD s(5);
    s << 1, 3, 2, 0, -1;
    const auto pts = temperature_sweep(s, {1e3, 1.0, 0.1, 1e-7});
    EXPECT_NEAR(pts[0].entropy, std::log(5.0), 1e-3);
    for (std::size_t i = 1; i < pts.size(); ++i)
        EXPECT_LT(pts[i].entropy, pts[i - 1].entropy);
    EXPECT_DOUBLE_EQ(pts.back().entropy, 0.0);
    EXPECT_DOUBLE_EQ(pts.back().max_weight, 1.0);
    // Ties share the hard limit.
    VectorD t(3);
    t << 2, 2, 1;
    EXPECT_NEAR(tempered_softmax(t, 1e-9)(0), 0.5, 1e-15);
}

TEST(LensLowRank, FullRankReproducesScores) {
    const MatrixD W = random_bilinear(6, 3);
    Rng rng(2);
    const MatrixD Xq = rng.normal_matrix(5, 6).cast<double>(),
                  Xk = rng.normal_matrix(7, 6).cast<double>();
    const LowRankView full = low_rank_view(W, Xq, Xk, 6);
    EXPECT_LE((full.rank_scores - full.full_scores).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_NEAR(full.weight_errors.back(), 0.0, 1e-12);
    EXPECT_DOUBLE_EQ(full.weight_errors.front(), 1.0);
    const LowRankView r2 = low_rank_view(W, Xq, Xk, 2);
    EXPECT_GT(relative_error(r2.rank_scores, r2.full_scores), 1e-3);
    EXPECT_EQ(r2.errors.size(), 7u);
    for (std::size_t k = 1; k < r2.weight_errors.size(); ++k)
        EXPECT_LE(r2.weight_errors[k], r2.weight_errors[k - 1]);
}

TEST(LensLowRank, SceneBilinearHasRankAtMostDk) {
    SceneSpec spec;
    spec.d_model = 32;
    spec.heads = 4;  // d_k = 8
    const MatrixD W = scene_bilinear(spec, 1);
    ASSERT_EQ(W.rows(), 32);
    const LowRankView v = low_rank_view(W, MatrixD::Identity(32, 32), MatrixD::Identity(32, 32), 8);
    EXPECT_GT(v.singular_values(7), 1e-6);
    EXPECT_LT(v.singular_values(8), 1e-9 * v.singular_values(0));
    EXPECT_LE((v.rank_scores - v.full_scores).cwiseAbs().maxCoeff(), 1e-9);
}

}  // namespace
