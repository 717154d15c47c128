// Tests of attn::attend / attend_scores: the worked example, identities, stages, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../reference_attention.hpp"
#include "../test_util.hpp"
#include "attn/attention/attention.hpp"
#include "attn/attention/softmax.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace {

using attn::Index;
using attn::Matrix;
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(Attention, WorkedExample) {
    Matrix Q(1, 4), K(3, 4), V(3, 1);
    Q << 1, 0, 1, 0;
    K << 1, 0, 1, 0,  //
        0, 1, 0, 1,   //
        1, 0, 0, 0;
    V << 10, 20, 30;
    const attn::HeadResult r = attn::attend(Q, K, V, {});
    EXPECT_NEAR(r.raw(0, 0), 2.f, 1e-6);
    EXPECT_NEAR(r.raw(0, 1), 0.f, 1e-6);
    EXPECT_NEAR(r.raw(0, 2), 1.f, 1e-6);
    EXPECT_FLOAT_EQ(r.scale_factor, 0.5f);
    EXPECT_NEAR(r.scaled_matrix()(0, 0), 1.f, 1e-6);
    EXPECT_NEAR(r.scaled_matrix()(0, 2), 0.5f, 1e-6);
    EXPECT_EQ(r.masked_matrix(), r.scaled_matrix());
    EXPECT_NEAR(r.weights(0, 0), 0.5065, 1e-4);
    EXPECT_NEAR(r.weights(0, 1), 0.1863, 1e-4);
    EXPECT_NEAR(r.weights(0, 2), 0.3072, 1e-4);
    // The issue quotes 18.007 (three decimals); the exact value is 18.007155, held here to 1e-4.
    EXPECT_NEAR(r.output(0, 0), 18.007155, 1e-4);
    EXPECT_NEAR(r.output(0, 0), 18.007, 5e-4);
    ASSERT_EQ(r.empty_rows.size(), 1u);
    EXPECT_EQ(r.empty_rows[0], 0);
}

TEST(Attention, MatchesBruteForceReferenceForEveryScoreAndMask) {
    attn::Rng rng(7);
    const std::pair<Index, Index> sizes[] = {{1, 1}, {5, 5}, {7, 3}, {3, 9}, {16, 16}, {33, 20}};
    int checked = 0;
    for (auto kind : {attn::ScoreKind::Dot, attn::ScoreKind::General, attn::ScoreKind::Additive,
                      attn::ScoreKind::Rbf}) {
        for (auto [nq, nk] : sizes) {
            const Index d = 8;
            const Matrix Q = rng.normal_matrix(nq, d), K = rng.normal_matrix(nk, d),
                         V = rng.normal_matrix(nk, 3);
            for (const attn::MaskSpec& mask : testutil::all_masks(nq, nk, rng)) {
                for (bool scale : {true, false}) {
                    attn::AttentionParams p;
                    p.score = attn::make_score_params(kind, d, 11, 1.5f);
                    p.scale = scale;
                    p.temperature = 0.7f;
                    p.mask = mask;
                    const attn::HeadResult r = attn::attend(Q, K, V, p);
                    const ref::Result e = ref::attention(Q, K, V, p);
                    SCOPED_TRACE(std::string(attn::to_string(kind)) + " " +
                                 std::string(attn::to_string(mask.kind)) + " " +
                                 std::to_string(nq) + "x" + std::to_string(nk));
                    ASSERT_EQ(r.raw.rows(), nq);
                    ASSERT_EQ(r.raw.cols(), nk);
                    EXPECT_LT((r.raw.cast<double>() - e.raw).cwiseAbs().maxCoeff(), 1e-4);
                    EXPECT_LT((r.weights.cast<double>() - e.weights).cwiseAbs().maxCoeff(), 1e-5);
                    EXPECT_LT((r.output.cast<double>() - e.output).cwiseAbs().maxCoeff(), 1e-4);
                    EXPECT_EQ(r.empty_rows, e.empty_rows);
                    ++checked;
                }
            }
        }
    }
    EXPECT_EQ(checked, 4 * 6 * 7 * 2);
}

TEST(Attention, IdentitiesOnRandomInputsOfManySizes) {
    attn::Rng rng(2024);
    for (int trial = 0; trial < 60; ++trial) {
        const Index nq = 1 + Index(rng.next() % 40), nk = 1 + Index(rng.next() % 40);
        const Index d = 1 + Index(rng.next() % 24), dv = 1 + Index(rng.next() % 5);
        const Matrix Q = rng.normal_matrix(nq, d, 2.0), K = rng.normal_matrix(nk, d, 2.0),
                     V = rng.normal_matrix(nk, dv);
        for (const attn::MaskSpec& mask : testutil::all_masks(nq, nk, rng)) {
            attn::AttentionParams p;
            p.mask = mask;
            const attn::HeadResult r = attn::attend(Q, K, V, p);
            const attn::BoolMatrix allowed = attn::build_mask(mask, nq, nk);
            for (Index i = 0; i < nq; ++i) {
                const bool empty = r.empty_rows[std::size_t(i)] != 0;
                EXPECT_EQ(empty, !allowed.row(i).any());
                EXPECT_NEAR(r.weights.row(i).sum(), empty ? 0.f : 1.f, 1e-5);
                for (Index j = 0; j < nk; ++j) {
                    if (!allowed(i, j)) {
                        EXPECT_EQ(r.weights(i, j), 0.f);  // exactly zero, not just small
                        EXPECT_EQ(r.masked_at(i, j), -kInf);
                    }
                    EXPECT_GE(r.weights(i, j), 0.f);
                }
                // Each output is a convex combination of the values: inside their per-dimension
                // range.
                for (Index t = 0; t < dv; ++t) {
                    if (empty) {
                        EXPECT_EQ(r.output(i, t), 0.f);
                        continue;
                    }
                    const float lo = V.col(t).minCoeff(), hi = V.col(t).maxCoeff();
                    EXPECT_GE(r.output(i, t), lo - 1e-5f);
                    EXPECT_LE(r.output(i, t), hi + 1e-5f);
                }
            }
        }
    }
}

TEST(Attention, ScalingKeepsScoreVarianceNearOne) {
    // Unit-variance q and k: Var(q·k) = d_k; scaling by 1/√d_k brings it back to 1.
    // Fixed seed, 65 536 scores per d_k; tolerance 6 % of the expected variance.
    attn::Rng rng(42);
    for (Index dk : {16, 64, 256}) {
        const Matrix Q = rng.normal_matrix(256, dk), K = rng.normal_matrix(256, dk),
                     V = rng.normal_matrix(256, 1);
        attn::AttentionParams p;
        p.scale = false;
        const attn::HeadResult un = attn::attend(Q, K, V, p);
        p.scale = true;
        const attn::HeadResult sc = attn::attend(Q, K, V, p);
        auto var = [](const Matrix& m) {
            const double mean = m.cast<double>().mean();
            return (m.cast<double>().array() - mean).square().mean();
        };
        EXPECT_NEAR(var(un.scaled_matrix()), double(dk), 0.06 * double(dk)) << "d_k = " << dk;
        EXPECT_NEAR(var(sc.scaled_matrix()), 1.0, 0.06) << "d_k = " << dk;
        EXPECT_FLOAT_EQ(sc.scale_factor, 1.f / std::sqrt(float(dk)));
        EXPECT_FLOAT_EQ(un.scale_factor, 1.f);
    }
}

TEST(Attention, ScalingAppliesOnlyToDotAndGeneral) {
    attn::Rng rng(3);
    const Matrix Q = rng.normal_matrix(4, 4), K = rng.normal_matrix(5, 4),
                 V = rng.normal_matrix(5, 2);
    for (auto kind : {attn::ScoreKind::Additive, attn::ScoreKind::Rbf}) {
        attn::AttentionParams p;
        p.score = attn::make_score_params(kind, 4, 5);
        const attn::HeadResult r = attn::attend(Q, K, V, p);
        EXPECT_FLOAT_EQ(r.scale_factor, 1.f);
        EXPECT_EQ(r.scaled_matrix(), r.raw);
    }
}

TEST(Attention, TemperatureDividesAndZeroIsArgmax) {
    Matrix Q(2, 1), K(3, 1), V(3, 1);
    Q << 1, 0;
    K << 1, 3, 3;
    V << 1, 2, 4;
    attn::AttentionParams p;
    p.scale = false;
    p.temperature = 2.f;
    const attn::HeadResult soft = attn::attend(Q, K, V, p);
    EXPECT_FLOAT_EQ(soft.scaled_matrix()(0, 1), 1.5f);
    p.temperature = 0.f;
    const attn::HeadResult hard = attn::attend(Q, K, V, p);
    // Row 0: keys 1 and 2 tie at 3 → half each. Row 1: all scores 0 → a third each.
    EXPECT_FLOAT_EQ(hard.weights(0, 0), 0.f);
    EXPECT_FLOAT_EQ(hard.weights(0, 1), 0.5f);
    EXPECT_FLOAT_EQ(hard.weights(0, 2), 0.5f);
    EXPECT_FLOAT_EQ(hard.output(0, 0), 3.f);
    for (Index j = 0; j < 3; ++j)
        EXPECT_FLOAT_EQ(hard.weights(1, j), 1.f / 3.f);
    EXPECT_EQ(hard.scaled_matrix(), hard.raw);  // "raw / 1" in the hard limit
    EXPECT_TRUE(hard.weights.allFinite());
    // Small but soft τ approaches the hard limit.
    p.temperature = 1e-3f;
    const attn::HeadResult cold = attn::attend(Q, K, V, p);
    EXPECT_NEAR(cold.weights(0, 1), 0.5f, 1e-6);
    EXPECT_NEAR(cold.weights(0, 0), 0.f, 1e-6);
    // Just at the threshold it is hard, with no division by a tiny τ.
    p.temperature = attn::kHardTemperature;
    EXPECT_EQ(attn::attend(Q, K, V, p).weights, hard.weights);
}

TEST(Attention, HardLimitNeverNaNEvenWithHugeScores) {
    Matrix raw(1, 4);
    raw << 1e30f, -1e30f, kInf, 3.f;
    attn::AttentionParams p;
    p.temperature = 0.f;
    const attn::HeadResult r = attn::attend_scores(raw, 64.f, p);
    EXPECT_TRUE(r.weights.allFinite());
    EXPECT_FLOAT_EQ(r.weights(0, 2), 1.f);
    EXPECT_FLOAT_EQ(r.weights.sum(), 1.f);
}

TEST(Attention, FullyMaskedRowGivesZeroWeightsAndOutputAndIsFlagged) {
    attn::Rng rng(9);
    const Matrix Q = rng.normal_matrix(3, 4), K = rng.normal_matrix(4, 4),
                 V = rng.normal_matrix(4, 2);
    attn::AttentionParams p;
    p.mask.kind = attn::MaskKind::Custom;
    p.mask.custom = attn::BoolMatrix::Constant(3, 4, true);
    p.mask.custom.row(1).setConstant(false);
    for (float tau : {1.f, 0.f}) {
        p.temperature = tau;
        const attn::HeadResult r = attn::attend(Q, K, V, p);
        EXPECT_EQ(r.empty_rows, (std::vector<std::uint8_t>{0, 1, 0}));
        EXPECT_TRUE(r.weights.row(1).isZero(0));
        EXPECT_TRUE(r.output.row(1).isZero(0));
        EXPECT_TRUE((r.masked_row(1).array() == -kInf).all());
        EXPECT_TRUE(r.weights.allFinite());
        EXPECT_TRUE(r.output.allFinite());
        EXPECT_NEAR(r.weights.row(0).sum(), 1.f, 1e-6);
    }
}

TEST(Attention, AttendScoresHandlesInfinitiesAndScales) {
    Matrix raw(4, 3);
    raw << kInf, 1, kInf,     //
        -kInf, -kInf, -kInf,  //
        1e30f, 0, -1e30f,     //
        2, 0, -kInf;
    Matrix V(3, 1);
    V << 1, 2, 3;
    attn::AttentionParams p;
    const attn::HeadResult r = attn::attend_scores(raw, 4.f, p, &V);
    EXPECT_FLOAT_EQ(r.scale_factor, 0.5f);
    EXPECT_FLOAT_EQ(r.weights(0, 0), 0.5f);
    EXPECT_FLOAT_EQ(r.weights(0, 1), 0.f);
    EXPECT_FLOAT_EQ(r.weights(0, 2), 0.5f);
    EXPECT_FLOAT_EQ(r.output(0, 0), 2.f);
    EXPECT_EQ(r.empty_rows, (std::vector<std::uint8_t>{0, 1, 0, 0}));
    EXPECT_TRUE(r.weights.row(1).isZero(0));
    EXPECT_FLOAT_EQ(r.weights(2, 0), 1.f);
    EXPECT_FLOAT_EQ(r.scaled_matrix()(3, 0), 1.f);  // 2 / √4
    EXPECT_NEAR(r.weights(3, 0), std::exp(1.f) / (std::exp(1.f) + 1.f), 1e-6);
    EXPECT_TRUE(r.weights.allFinite());
    EXPECT_TRUE(r.output.allFinite());
    // Without V there is no output.
    EXPECT_EQ(attn::attend_scores(raw, 4.f, p).output.size(), 0);
}

TEST(Attention, ErrorsAreTypedAndInformative) {
    attn::Rng rng(1);
    const Matrix Q = rng.normal_matrix(2, 4), K3 = rng.normal_matrix(5, 3),
                 K = rng.normal_matrix(5, 4), V = rng.normal_matrix(5, 2),
                 V6 = rng.normal_matrix(6, 2);
    const attn::AttentionParams p;
    EXPECT_THROW_MSG(attn::attend(Q, K3, V, p), attn::ShapeError, "2 x 4", "5 x 3");
    EXPECT_THROW_MSG(attn::attend(Q, K, V6, p), attn::ShapeError, "V", "6 x 2");
    EXPECT_THROW_MSG(attn::attend(Matrix(0, 4), K, V, p), attn::ArgumentError, "Empty",
                     "0 queries");
    EXPECT_THROW_MSG(attn::attend(Q, Matrix(0, 4), Matrix(0, 2), p), attn::ArgumentError, "0 keys");
    Matrix Qn = Q;
    Qn(1, 2) = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW_MSG(attn::attend(Qn, K, V, p), attn::NonFiniteError, "Q", "row 1", "column 2");
    Matrix Vi = V;
    Vi(0, 0) = kInf;
    EXPECT_THROW_MSG(attn::attend(Q, K, Vi, p), attn::NonFiniteError, "V", "row 0");
    attn::AttentionParams neg;
    neg.temperature = -1.f;
    EXPECT_THROW_MSG(attn::attend(Q, K, V, neg), attn::ArgumentError, "Temperature", "-1");
    neg.temperature = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(attn::attend(Q, K, V, neg), attn::ArgumentError);
    attn::AttentionParams custom;
    custom.mask.kind = attn::MaskKind::Custom;
    custom.mask.custom = attn::BoolMatrix::Constant(3, 3, true);
    EXPECT_THROW_MSG(attn::attend(Q, K, V, custom), attn::ShapeError, "3 x 3", "2 x 5");
    Matrix raw(1, 2);
    raw << 1, std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW_MSG(attn::attend_scores(raw, 4.f, p), attn::NonFiniteError, "NaN", "column 1");
    EXPECT_THROW_MSG(attn::attend_scores(Matrix(0, 0), 4.f, p), attn::ArgumentError, "Empty");
    Matrix ok(1, 2);
    ok << 1, 2;
    EXPECT_THROW_MSG(attn::attend_scores(ok, 0.f, p), attn::ArgumentError, "d_k");
    EXPECT_THROW_MSG(attn::attend_scores(ok, 4.f, p, &V), attn::ShapeError, "2 keys", "5 x 2");
}

}  // namespace
