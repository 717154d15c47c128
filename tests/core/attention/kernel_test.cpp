// Tests of Nadaraya–Watson kernel regression and its identity with softmax attention; and the
// convex-hull theorem: every attention output lies in the hull of the values.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "attn/attention/attention.hpp"
#include "attn/attention/kernel.hpp"
#include "attn/playground/geometry.hpp"
#include "attn/util/error.hpp"

namespace {

attn::Matrix random_matrix(std::mt19937& gen, attn::Index r, attn::Index c, float sd = 1.f) {
    std::normal_distribution<float> nd(0.f, sd);
    attn::Matrix m(r, c);
    for (attn::Index i = 0; i < r; ++i)
        for (attn::Index j = 0; j < c; ++j)
            m(i, j) = nd(gen);
    return m;
}

attn::MatrixD d(const attn::Matrix& m) {
    return m.cast<double>();
}

TEST(NadarayaWatson, HandComputedRbf) {
    // Keys 0 and 1, values 0 and 1, query 0, σ = 1: weights ∝ (1, e^{−1/2}).
    attn::MatrixD Q(1, 1), K(2, 1), V(2, 1);
    Q << 0;
    K << 0, 1;
    V << 0, 1;
    const double e = std::exp(-0.5);
    const attn::MatrixD y = attn::nadaraya_watson(Q, K, V, attn::rbf_kernel(1.0));
    EXPECT_NEAR(y(0, 0), e / (1 + e), 1e-15);
}

TEST(NadarayaWatson, AnyKernelAndZeroTotalWeight) {
    // A box kernel (any non-negative function works): only keys within 1 count.
    auto box = attn::log_of([](const Eigen::Ref<const Eigen::RowVectorXd>& q,
                               const Eigen::Ref<const Eigen::RowVectorXd>& k) {
        return (q - k).norm() <= 1.0 ? 1.0 : 0.0;
    });
    attn::MatrixD Q(2, 1), K(3, 1), V(3, 1);
    Q << 0.5, 10;
    K << 0, 1, 5;
    V << 2, 4, 100;
    const attn::MatrixD y = attn::nadaraya_watson(Q, K, V, box);
    EXPECT_DOUBLE_EQ(y(0, 0), 3.0);
    EXPECT_DOUBLE_EQ(y(1, 0), 0.0);  // no key in range: zero, like a fully masked attention row
}

TEST(NadarayaWatson, HugeScoresStayFinite) {
    attn::MatrixD Q(1, 1), K(2, 1), V(2, 1);
    Q << 1e4;
    K << 1e4, 0;
    V << 1, 2;
    const attn::MatrixD y = attn::nadaraya_watson(Q, K, V, attn::exp_dot_kernel(1.0));
    EXPECT_DOUBLE_EQ(y(0, 0), 1.0);
}

TEST(NadarayaWatson, BadArguments) {
    attn::MatrixD Q(1, 2), K(2, 3), V(2, 1);
    Q.setZero();
    K.setZero();
    V.setZero();
    EXPECT_THROW(attn::nadaraya_watson(Q, K, V, attn::exp_dot_kernel(1)), attn::ShapeError);
    EXPECT_THROW(attn::rbf_kernel(0.0), attn::ArgumentError);
    EXPECT_THROW(attn::exp_dot_kernel_dk(0), attn::ArgumentError);
    EXPECT_THROW(
        attn::nadaraya_watson(attn::MatrixD(1, 3), K, attn::MatrixD(3, 1), attn::exp_dot_kernel(1)),
        attn::ShapeError);
}

TEST(NadarayaWatson, OneDimensionalCurve) {
    attn::VectorD q(3), k(2), v(2);
    q << -100, 0.5, 100;
    k << 0, 1;
    v << 1, 3;
    const attn::VectorD y = attn::nadaraya_watson_1d(q, k, v, attn::rbf_kernel(0.5));
    EXPECT_NEAR(y[0], 1.0, 1e-12);
    EXPECT_NEAR(y[1], 2.0, 1e-12);  // midway: equal weights
    EXPECT_NEAR(y[2], 3.0, 1e-12);
}

TEST(NadarayaWatson, EqualsScaledDotAttention) {
    std::mt19937 gen(11);
    for (attn::Index dk : {1, 2, 4, 16, 64}) {
        for (attn::Index nq : {1, 3, 17}) {
            for (attn::Index nk : {1, 2, 9, 40}) {
                const attn::Matrix Q = random_matrix(gen, nq, dk);
                const attn::Matrix K = random_matrix(gen, nk, dk);
                const attn::Matrix V = random_matrix(gen, nk, 3);
                attn::AttentionParams p;
                p.score.kind = attn::ScoreKind::Dot;
                p.scale = true;
                const attn::HeadResult h = attn::attend(Q, K, V, p);
                const attn::MatrixD y =
                    attn::nadaraya_watson(d(Q), d(K), d(V), attn::exp_dot_kernel_dk(dk));
                EXPECT_LT((y - d(h.output)).cwiseAbs().maxCoeff(), 1e-5)
                    << dk << " " << nq << " " << nk;
                const attn::MatrixD w =
                    attn::nadaraya_watson_weights(d(Q), d(K), attn::exp_dot_kernel_dk(dk));
                EXPECT_LT((w - d(h.weights)).cwiseAbs().maxCoeff(), 1e-5);
                // Unscaled attention is the kernel with scale 1.
                p.scale = false;
                const attn::HeadResult u = attn::attend(Q, K, V, p);
                const attn::MatrixD yu =
                    attn::nadaraya_watson(d(Q), d(K), d(V), attn::exp_dot_kernel(1.0));
                EXPECT_LT((yu - d(u.output)).cwiseAbs().maxCoeff(), 1e-5);
            }
        }
    }
}

TEST(NadarayaWatson, EqualsRbfAttention) {
    std::mt19937 gen(12);
    for (float sigma : {0.5f, 1.f, 3.f}) {
        for (attn::Index dk : {1, 2, 8}) {
            for (attn::Index nk : {1, 5, 31}) {
                const attn::Matrix Q = random_matrix(gen, 7, dk);
                const attn::Matrix K = random_matrix(gen, nk, dk);
                const attn::Matrix V = random_matrix(gen, nk, 2);
                attn::AttentionParams p;
                p.score.kind = attn::ScoreKind::Rbf;
                p.score.sigma = sigma;
                const attn::HeadResult h = attn::attend(Q, K, V, p);
                const attn::MatrixD y =
                    attn::nadaraya_watson(d(Q), d(K), d(V), attn::rbf_kernel(sigma));
                EXPECT_LT((y - d(h.output)).cwiseAbs().maxCoeff(), 1e-5)
                    << sigma << " " << dk << " " << nk;
            }
        }
    }
}

TEST(ConvexHullTheorem, EveryAttentionOutputLiesInTheHullOfTheValues) {
    std::mt19937 gen(13);
    int checked = 0;
    for (attn::Index dk : {1, 2, 8, 32}) {
        for (attn::Index nk : {1, 2, 3, 6, 20, 100}) {
            for (float vscale : {0.01f, 1.f, 100.f}) {
                const attn::Matrix Q = random_matrix(gen, 9, dk, 2.f);
                const attn::Matrix K = random_matrix(gen, nk, dk, 2.f);
                const attn::Matrix V = random_matrix(gen, nk, 2, vscale);
                for (attn::ScoreKind kind : {attn::ScoreKind::Dot, attn::ScoreKind::Rbf}) {
                    attn::AttentionParams p;
                    p.score.kind = kind;
                    const attn::HeadResult h = attn::attend(Q, K, V, p);
                    std::vector<attn::Point2> values;
                    for (attn::Index j = 0; j < nk; ++j)
                        values.emplace_back(V(j, 0), V(j, 1));
                    const auto hull = attn::convex_hull(values);
                    for (attn::Index i = 0; i < Q.rows(); ++i) {
                        const attn::Point2 o(h.output(i, 0), h.output(i, 1));
                        // Float rounding of the weighted sum: tolerance relative to the values.
                        EXPECT_TRUE(attn::point_in_hull(hull, o, 1e-5 * vscale))
                            << "dk=" << dk << " nk=" << nk
                            << " d=" << attn::distance_to_hull(hull, o);
                        ++checked;
                    }
                }
            }
        }
    }
    EXPECT_GT(checked, 400);
}

}  // namespace
