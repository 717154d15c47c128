// Tests of the "efficient" lens: tiled online softmax, FAVOR+, sparse masks.
#include <gtest/gtest.h>

#include "attn/attention/attention.hpp"
#include "attn/lenses/common.hpp"
#include "attn/lenses/favor.hpp"
#include "attn/lenses/reference.hpp"
#include "attn/lenses/sparse.hpp"
#include "attn/lenses/tiled.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace {

using namespace attn;
using namespace attn::lenses;

MatrixD normal(Rng& rng, Index r, Index c, double sd = 1.0) {
    return rng.normal_matrix(r, c, sd).cast<double>();
}

TEST(LensTiled, EqualsExactForRandomSizesBlocksAndMasks) {
    Rng rng(42);
    for (int trial = 0; trial < 60; ++trial) {
        const Index nq = 1 + Index(rng.uniform() * 40), nk = 1 + Index(rng.uniform() * 40);
        const Index d = 1 + Index(rng.uniform() * 16), dv = 1 + Index(rng.uniform() * 8);
        const MatrixD Q = normal(rng, nq, d, 2.0), K = normal(rng, nk, d, 2.0),
                      V = normal(rng, nk, dv);
        BoolMatrix mask(nq, nk);
        const double keep = rng.uniform();  // from almost empty to almost full
        for (Index i = 0; i < nq; ++i)
            for (Index j = 0; j < nk; ++j)
                mask(i, j) = rng.uniform() < keep;
        mask.row(0).setConstant(false);  // always at least one fully masked row
        TiledConfig c;
        c.block_q = 1 + Index(rng.uniform() * 12);
        c.block_k = 1 + Index(rng.uniform() * 12);
        const bool use_mask = trial % 4 != 0;
        std::vector<std::uint8_t> empty;
        const MatrixD exact = exact_attention(Q, K, V, use_mask ? &mask : nullptr, true, &empty);
        const TiledResult t = tiled_attention(Q, K, V, use_mask ? &mask : nullptr, true, c);
        EXPECT_LE((t.output - exact).cwiseAbs().maxCoeff(), 1e-6) << "trial " << trial;
        EXPECT_EQ(t.empty_rows, empty);
        if (use_mask) {
            EXPECT_EQ(t.empty_rows[0], 1);
            EXPECT_EQ(t.output.row(0).cwiseAbs().sum(), 0.0);
        }
    }
}

TEST(LensTiled, AgreesWithCoreAttend) {
    // The lens's double-precision tiled way against attn::attend (float) on a causal mask.
    Rng rng(77);
    const Index n = 19, d = 8;
    const Matrix Qf = rng.normal_matrix(n, d), Kf = rng.normal_matrix(n, d),
                 Vf = rng.normal_matrix(n, 5);
    AttentionParams p;
    p.mask.kind = MaskKind::Custom;
    p.mask.custom = BoolMatrix::Constant(n, n, false);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j <= i; ++j)
            p.mask.custom(i, j) = true;
    p.mask.custom.row(3).setConstant(false);  // one fully masked row
    const HeadResult ref = attend(Qf, Kf, Vf, p);
    TiledConfig c;
    c.block_q = 4;
    c.block_k = 7;
    const TiledResult t = tiled_attention(Qf.cast<double>(), Kf.cast<double>(), Vf.cast<double>(),
                                          &p.mask.custom, true, c);
    EXPECT_LE((t.output - ref.output.cast<double>()).cwiseAbs().maxCoeff(), 1e-5);
    EXPECT_EQ(t.empty_rows, ref.empty_rows);
}

TEST(LensTiled, PeakBytesAreCounted) {
    TiledConfig c;
    c.block_q = 8;
    c.block_k = 16;
    c.bytes_per_value = 4;
    EXPECT_EQ(tiled_peak_bytes(c, 32), (8u * 16 + 8u * 34) * 4);
    EXPECT_EQ(dense_peak_bytes(1024, 1024, 4), 1024ull * 1024 * 4);
}

TEST(LensFavor, ErrorFallsAsFeaturesGrow) {
    Rng rng(5);
    const Index n = 32, d = 16;
    const MatrixD Q = normal(rng, n, d, 0.5), K = normal(rng, n, d, 0.5), V = normal(rng, n, 8);
    for (bool orthogonal : {false, true}) {
        const auto curve = favor_error_curve(Q, K, V, {4, 16, 64, 256, 1024}, 8, orthogonal, 9);
        ASSERT_EQ(curve.size(), 5u);
        for (std::size_t i = 1; i < curve.size(); ++i)
            EXPECT_LT(curve[i].mean_error, curve[i - 1].mean_error) << "m = " << curve[i].features;
        // Monte Carlo: error ~ 1/√m, so 256× the features should cut it by well over 4×.
        EXPECT_LT(curve.back().mean_error, curve.front().mean_error / 4);
        EXPECT_LT(curve.back().mean_error, 0.1);
    }
}

// The estimator itself: with small ‖q′ + k′‖² (the variance of a feature is e^{‖q′+k′‖²} − 1)
// the error falls at the Monte-Carlo rate, a log-log slope of −½.
TEST(LensFavor, ErrorFallsAsOneOverRootM) {
    Rng rng(5);
    const Index n = 32, d = 16;
    const MatrixD Q = normal(rng, n, d, 0.2), K = normal(rng, n, d, 0.2), V = normal(rng, n, 8);
    EXPECT_LT(favor_variance_exponent(Q, K), 1.0);
    const std::vector<Index> ms = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
    const double slope = favor_convergence_slope(favor_error_curve(Q, K, V, ms, 16, false, 9));
    EXPECT_NEAR(slope, -0.5, 0.06);
}

// The lens's inputs have large norms: there the features are heavy-tailed and the curve is much
// flatter than 1/√m over the m the lens shows — what its guide line now says.
TEST(LensFavor, HeavyTailsFlattenTheCurve) {
    const QkvSample s = local_qkv(64, 16, 2.0, 0.7, 31);
    const double exponent = favor_variance_exponent(s.Q, s.K);
    EXPECT_GT(exponent, 8.0);  // e^8 ≈ 3000 ≫ the 1024 features shown
    const std::vector<Index> ms = {4, 8, 16, 32, 64, 128, 256, 512, 1024};
    const double slope =
        favor_convergence_slope(favor_error_curve(s.Q, s.K, s.V, ms, 4, false, 31));
    EXPECT_GT(slope, -0.3);
    EXPECT_LT(slope, 0.0);
}

TEST(LensFavor, SlopeAndExponentByHand) {
    // Errors 1, 1/2, 1/4 at m = 1, 4, 16: log-log slope exactly −½.
    std::vector<FavorPoint> curve(3);
    for (int i = 0; i < 3; ++i) {
        curve[std::size_t(i)].features = Index(1) << (2 * i);
        curve[std::size_t(i)].mean_value_error = 1.0 / double(1 << i);
    }
    EXPECT_NEAR(favor_convergence_slope(curve), -0.5, 1e-12);
    EXPECT_THROW(favor_convergence_slope({curve[0]}), ArgumentError);
    // d = 4: q′ + k′ = (q + k)/√2, so ‖q′+k′‖² = ‖q + k‖²/2; the largest pair is (q₁, k₀).
    MatrixD Q(2, 4), K(2, 4);
    Q << 1, 0, 0, 0, 2, 0, 0, 0;
    K << 1, 1, 0, 0, -1, 0, 0, 0;
    EXPECT_NEAR(favor_variance_exponent(Q, K), (9.0 + 1.0) / 2.0, 1e-12);
}

TEST(LensFavor, OrthogonalProjectionRowsAreOrthogonalInBlocks) {
    const MatrixD W = random_projection(8, 8, true, 3);
    const MatrixD G = W * W.transpose();
    for (Index i = 0; i < 8; ++i)
        for (Index j = 0; j < 8; ++j) {
            if (i != j) {
                EXPECT_NEAR(G(i, j), 0.0, 1e-9);
            }
        }
}

TEST(LensSparse, MasksAndErrors) {
    const BoolMatrix w = bigbird_mask(6, 1, {}, 0, 1);
    EXPECT_EQ(w.count(), 6 + 2 * 5);
    const BoolMatrix g = bigbird_mask(6, 1, {0}, 0, 1);
    EXPECT_TRUE(g.row(0).all());
    EXPECT_TRUE(g.col(0).all());
    const BoolMatrix b = bigbird_mask(6, 1, {0}, 2, 1);
    EXPECT_GE(b.count(), g.count());
    EXPECT_TRUE((b.array() || !g.array()).all());  // BigBird ⊇ global+window

    Rng rng(8);
    const MatrixD Q = normal(rng, 24, 8), K = normal(rng, 24, 8), V = normal(rng, 24, 4);
    SparseConfig c;
    const auto res = compare_sparse(Q, K, V, c);
    ASSERT_EQ(res.size(), 3u);
    EXPECT_EQ(res[0].name, "window");
    for (const auto& r : res) {
        EXPECT_GT(r.error, 0.0);
        EXPECT_LT(r.density, 1.0);
    }
    c.window = 24;  // the full band is exact
    EXPECT_NEAR(compare_sparse(Q, K, V, c)[0].error, 0.0, 1e-12);
}

TEST(LensSparse, LocalityHelpsTheWindowPattern) {
    SparseConfig c;
    c.window = 4;
    const QkvSample flat = local_qkv(64, 16, 0.0, 0.7, 31);
    const QkvSample local = local_qkv(64, 16, 6.0, 0.7, 31);
    ASSERT_EQ(flat.Q.rows(), 64);
    ASSERT_EQ(flat.Q.cols(), 16);
    // Positional parts are shared by Q and K: the score bump sits on the diagonal.
    EXPECT_EQ(local.Q.rightCols(8), local.K.rightCols(8));
    const double eFlat = compare_sparse(flat.Q, flat.K, flat.V, c)[0].value_error;
    const double eLocal = compare_sparse(local.Q, local.K, local.V, c)[0].value_error;
    EXPECT_LT(eLocal, eFlat);
    EXPECT_THROW(local_qkv(8, 3, 1, 1, 1), ArgumentError);
}

}  // namespace
