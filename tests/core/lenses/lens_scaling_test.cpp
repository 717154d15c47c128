// Tests of the "scaling" and "entropy" lenses' random-key parts.
#include <gtest/gtest.h>

#include <cmath>

#include "attn/lenses/common.hpp"
#include "attn/lenses/entropy.hpp"
#include "attn/lenses/scaling.hpp"

namespace {

using namespace attn;
using namespace attn::lenses;

// Var(q·k) for N(0,1) entries is d_k; the sample variance of N draws has relative standard
// error √(2/N)·(1 + excess-kurtosis term) ≈ 2% at N = 20000 for these products, so 8% is a
// four-sigma bound at a fixed seed.
TEST(LensScaling, DotProductVarianceIsDkUnscaledAndOneScaled) {
    for (Index d : {4, 16, 64, 256}) {
        const DotSamples s = sample_dot_products(d, 20000, 7);
        EXPECT_NEAR(moments(s.unscaled).variance / double(d), 1.0, 0.08) << "d_k = " << d;
        EXPECT_NEAR(moments(s.scaled).variance, 1.0, 0.08) << "d_k = " << d;
        EXPECT_NEAR(moments(s.scaled).mean, 0.0, 0.05);
    }
}

TEST(LensScaling, JacobianNormMatchesBruteForce) {
    VectorD a(4);
    a << 0.1, 0.2, 0.3, 0.4;
    const MatrixD J = MatrixD(a.asDiagonal()) - a * a.transpose();
    EXPECT_NEAR(softmax_jacobian_norm(a), J.norm(), 1e-12);
    VectorD onehot = VectorD::Zero(5);
    onehot(2) = 1;
    EXPECT_NEAR(softmax_jacobian_norm(onehot), 0.0, 1e-15);
}

TEST(LensScaling, UnscaledSoftmaxSaturatesAsDkGrows) {
    ScalingConfig c;
    c.d_ks = {1, 16, 256};
    c.keys = 32;
    c.trials = 64;
    const auto pts = scaling_sweep(c);
    ASSERT_EQ(pts.size(), 3u);
    EXPECT_NEAR(pts[2].var_unscaled / 256.0, 1.0, 0.15);
    EXPECT_NEAR(pts[2].var_scaled, 1.0, 0.15);
    // Unscaled: max weight → 1, entropy and gradient → 0; scaled: roughly constant.
    EXPECT_GT(pts[2].max_unscaled, 0.8);
    EXPECT_LT(pts[2].jacobian_unscaled, pts[0].jacobian_unscaled);
    EXPECT_LT(pts[2].entropy_unscaled, 0.5 * pts[2].entropy_scaled);
    EXPECT_NEAR(pts[2].entropy_scaled, pts[1].entropy_scaled, 0.3);
}

TEST(LensEntropy, RandomKeyEntropyBelowCeilingLogN) {
    const auto pts = random_key_entropy({1, 4, 16, 64, 256}, 16, 32, 3);
    ASSERT_EQ(pts.size(), 5u);
    EXPECT_DOUBLE_EQ(pts[0].entropy, 0.0);
    for (const auto& p : pts) {
        EXPECT_DOUBLE_EQ(p.ceiling, std::log(double(p.n)));
        EXPECT_LE(p.entropy, p.ceiling + 1e-12);
    }
    // Dilution: entropy keeps growing with n, within a constant of log n.
    for (std::size_t i = 1; i < pts.size(); ++i)
        EXPECT_GT(pts[i].entropy, pts[i - 1].entropy);
    EXPECT_GT(pts.back().entropy, pts.back().ceiling - 1.0);
}

TEST(LensEntropy, UniformScoresReachTheCeiling) {
    // d_k-independent check of the ceiling: equal scores give exactly log n.
    VectorD s = VectorD::Constant(10, 0.5);
    EXPECT_NEAR(entropy(softmax(s)), std::log(10.0), 1e-12);
}

TEST(LensCommon, HistogramDensityIntegratesToOne) {
    const auto s = sample_dot_products(8, 5000, 1);
    const Histogram h = histogram(s.scaled, 40, -5, 5);
    double area = 0;
    for (double c : h.counts)
        area += c * h.width;
    EXPECT_NEAR(area, 1.0, 1e-12);
    EXPECT_EQ(geometric_range(1, 100, 3), (std::vector<Index>{1, 10, 100}));
}

}  // namespace
