// Tests of attn::compute_scores and score parameters: hand values per kind, errors, names.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../test_util.hpp"
#include "attn/attention/score.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::Matrix;
using attn::ScoreKind;

TEST(Score, DotHandValues) {
    Matrix Q(2, 2), K(3, 2);
    Q << 1, 2, 0, -1;
    K << 3, 4, 1, 0, -2, 5;
    attn::ScoreParams p;
    const Matrix S = attn::compute_scores(Q, K, p);
    Matrix e(2, 3);
    e << 11, 1, 8, -4, 0, -5;
    EXPECT_EQ(S, e);
}

TEST(Score, GeneralHandValues) {
    Matrix Q(1, 2), K(2, 3);
    Q << 1, 2;
    K << 1, 0, 0, 0, 1, 1;
    attn::ScoreParams p;
    p.kind = ScoreKind::General;
    p.W.resize(2, 3);
    p.W << 1, 0, 2,  //
        0, 3, 0;
    // qᵀW = [1, 6, 2]; · k1 = 1, · k2 = 8.
    const Matrix S = attn::compute_scores(Q, K, p);
    EXPECT_FLOAT_EQ(S(0, 0), 1.f);
    EXPECT_FLOAT_EQ(S(0, 1), 8.f);
}

TEST(Score, AdditiveHandValues) {
    Matrix Q(1, 1), K(2, 1);
    Q << 0.5f;
    K << 0.f, -0.5f;
    attn::ScoreParams p;
    p.kind = ScoreKind::Additive;
    p.Wa.resize(1, 2);
    p.Wa << 1, 2;
    p.Ua.resize(1, 2);
    p.Ua << 1, -1;
    p.va.resize(2);
    p.va << 2, 1;
    const Matrix S = attn::compute_scores(Q, K, p);
    // k1: h = [0.5, 1] → 2 tanh 0.5 + tanh 1; k2: h = [0, 1.5] → tanh 1.5.
    EXPECT_NEAR(S(0, 0), 2 * std::tanh(0.5) + std::tanh(1.0), 1e-6);
    EXPECT_NEAR(S(0, 1), std::tanh(1.5), 1e-6);
}

TEST(Score, RbfHandValuesAndNeverPositive) {
    Matrix Q(1, 2), K(3, 2);
    Q << 1, 1;
    K << 1, 1, 3, 1, 1, -2;
    attn::ScoreParams p;
    p.kind = ScoreKind::Rbf;
    p.sigma = 2.f;
    const Matrix S = attn::compute_scores(Q, K, p);
    EXPECT_EQ(S(0, 0), 0.f);
    EXPECT_FLOAT_EQ(S(0, 1), -4.f / 8.f);
    EXPECT_FLOAT_EQ(S(0, 2), -9.f / 8.f);
    attn::Rng rng(1);
    const Matrix X = rng.normal_matrix(20, 16, 100.0);
    EXPECT_LE(attn::compute_scores(X, X, p).maxCoeff(), 0.f);
}

TEST(Score, RawVarianceIsDk) {
    // Unit-variance q, k: Var(q·k) = d_k (fixed seed; 90 000 samples; 5 % tolerance).
    attn::Rng rng(77);
    for (attn::Index dk : {4, 32, 128}) {
        const Matrix S =
            attn::compute_scores(rng.normal_matrix(300, dk), rng.normal_matrix(300, dk), {});
        const double mean = S.cast<double>().mean();
        const double var = (S.cast<double>().array() - mean).square().mean();
        EXPECT_NEAR(var, double(dk), 0.05 * double(dk));
        EXPECT_NEAR(mean, 0.0, 0.05 * std::sqrt(double(dk)));
    }
}

TEST(Score, Scalability) {
    EXPECT_TRUE(attn::score_is_scalable(ScoreKind::Dot));
    EXPECT_TRUE(attn::score_is_scalable(ScoreKind::General));
    EXPECT_FALSE(attn::score_is_scalable(ScoreKind::Additive));
    EXPECT_FALSE(attn::score_is_scalable(ScoreKind::Rbf));
}

TEST(Score, MakeParamsShapesAndDeterminism) {
    const attn::ScoreParams g = attn::make_score_params(ScoreKind::General, 6, 3);
    EXPECT_EQ(g.W.rows(), 6);
    EXPECT_EQ(g.W.cols(), 6);
    EXPECT_EQ(g.W, attn::make_score_params(ScoreKind::General, 6, 3).W);
    EXPECT_NE(g.W, attn::make_score_params(ScoreKind::General, 6, 4).W);
    const attn::ScoreParams a = attn::make_score_params(ScoreKind::Additive, 5, 3);
    EXPECT_EQ(a.Wa.rows(), 5);
    EXPECT_EQ(a.Ua.rows(), 5);
    EXPECT_EQ(a.va.size(), 5);
    EXPECT_FLOAT_EQ(attn::make_score_params(ScoreKind::Rbf, 5, 3, 0.25f).sigma, 0.25f);
    EXPECT_THROW(attn::make_score_params(ScoreKind::Dot, 0, 3), attn::ArgumentError);
}

TEST(Score, Errors) {
    attn::Rng rng(2);
    const Matrix Q = rng.normal_matrix(2, 4), K = rng.normal_matrix(3, 4);
    attn::ScoreParams g;
    g.kind = ScoreKind::General;
    g.W = Matrix::Ones(3, 4);
    EXPECT_THROW_MSG(attn::compute_scores(Q, K, g), attn::ShapeError, "4 x 4", "3 x 4");
    attn::ScoreParams a;
    a.kind = ScoreKind::Additive;
    a.Wa = Matrix::Ones(4, 2);
    a.Ua = Matrix::Ones(4, 3);
    a.va = attn::Vector::Ones(2);
    EXPECT_THROW_MSG(attn::compute_scores(Q, K, a), attn::ShapeError, "U_a 4 x 3");
    attn::ScoreParams r;
    r.kind = ScoreKind::Rbf;
    r.sigma = 0.f;
    EXPECT_THROW_MSG(attn::compute_scores(Q, K, r), attn::ArgumentError, "sigma");
    EXPECT_THROW_MSG(attn::compute_scores(Q, rng.normal_matrix(3, 5), {}), attn::ShapeError,
                     "2 x 4", "3 x 5");
    EXPECT_THROW(attn::compute_scores(Matrix(0, 4), K, {}), attn::ArgumentError);
    Matrix Kn = K;
    Kn(2, 3) = -std::numeric_limits<float>::infinity();
    EXPECT_THROW_MSG(attn::compute_scores(Q, Kn, {}), attn::NonFiniteError, "K", "row 2");
}

TEST(Score, NamesRoundTrip) {
    for (auto k : {ScoreKind::Dot, ScoreKind::General, ScoreKind::Additive, ScoreKind::Rbf})
        EXPECT_EQ(attn::score_kind_from_string(attn::to_string(k)), k);
    EXPECT_EQ(attn::score_kind_from_string("scaled-dot"), ScoreKind::Dot);
    EXPECT_THROW_MSG(attn::score_kind_from_string("cosine"), attn::ArgumentError, "cosine");
}

}  // namespace
