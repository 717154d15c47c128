// Tests of the low-rank factorisation of a bilinear score matrix.
#include <gtest/gtest.h>

#include <random>

#include "attn/analysis/lowrank.hpp"
#include "attn/util/error.hpp"

namespace {

attn::MatrixD random_matrix_d(std::mt19937& gen, attn::Index r, attn::Index c) {
    std::normal_distribution<double> nd;
    attn::MatrixD m(r, c);
    for (attn::Index i = 0; i < r; ++i)
        for (attn::Index j = 0; j < c; ++j)
            m(i, j) = nd(gen);
    return m;
}

TEST(LowRank, FullRankReproducesScores) {
    std::mt19937 gen(21);
    for (auto [ds, dh] : {std::pair<attn::Index, attn::Index>{2, 2}, {4, 7}, {9, 3}, {16, 16}}) {
        const attn::MatrixD W = random_matrix_d(gen, ds, dh);
        const attn::Index full = std::min(ds, dh);
        const attn::LowRankFactors f = attn::factorize_bilinear(W, full);
        ASSERT_EQ(f.Wq.rows(), full);
        ASSERT_EQ(f.Wq.cols(), ds);
        ASSERT_EQ(f.Wk.rows(), full);
        ASSERT_EQ(f.Wk.cols(), dh);
        const attn::MatrixD Q = random_matrix_d(gen, 10, ds);
        const attn::MatrixD K = random_matrix_d(gen, 12, dh);
        const attn::MatrixD S = Q * W * K.transpose();
        // Scores through the factors: (Q W_Qᵀ)(K W_Kᵀ)ᵀ, the form of q·k after projection.
        const attn::MatrixD Sf = (Q * f.Wq.transpose()) * (K * f.Wk.transpose()).transpose();
        EXPECT_LT((S - Sf).cwiseAbs().maxCoeff(), 1e-5);
        EXPECT_LT((f.product() - W).cwiseAbs().maxCoeff(), 1e-10);
    }
}

TEST(LowRank, ErrorsNonIncreasingAndZeroAtFullRank) {
    std::mt19937 gen(22);
    for (auto [ds, dh] : {std::pair<attn::Index, attn::Index>{3, 3}, {8, 5}, {12, 12}}) {
        const attn::MatrixD W = random_matrix_d(gen, ds, dh);
        // Orthonormal Q and K columns (QᵀQ = KᵀK = I) keep the rank-one terms orthogonal.
        const Eigen::MatrixXd Qo =
            Eigen::HouseholderQR<Eigen::MatrixXd>(random_matrix_d(gen, 30, ds)).householderQ() *
            Eigen::MatrixXd::Identity(30, ds);
        const Eigen::MatrixXd Ko =
            Eigen::HouseholderQR<Eigen::MatrixXd>(random_matrix_d(gen, 25, dh)).householderQ() *
            Eigen::MatrixXd::Identity(25, dh);
        for (const auto& [Q, K] :
             {std::pair<attn::MatrixD, attn::MatrixD>{Qo, Ko},
              {random_matrix_d(gen, 400, ds), random_matrix_d(gen, 400, dh)}}) {
            const auto e = attn::low_rank_score_errors(W, Q, K);
            ASSERT_EQ(e.size(), static_cast<std::size_t>(std::min(ds, dh) + 1));
            EXPECT_NEAR(e.front(), 1.0, 1e-12);
            EXPECT_LT(e.back(), 1e-10);
            for (std::size_t r = 1; r < e.size(); ++r)
                EXPECT_LE(e[r], e[r - 1] + 1e-12) << r;
        }
    }
}

TEST(LowRank, EckartYoungTailSingularValues) {
    std::mt19937 gen(23);
    const attn::MatrixD W = random_matrix_d(gen, 7, 5);
    const attn::VectorD s = attn::singular_values(W);
    ASSERT_EQ(s.size(), 5);
    for (attn::Index i = 1; i < s.size(); ++i)
        EXPECT_GE(s[i - 1], s[i]);
    const auto e = attn::low_rank_score_errors(W, attn::MatrixD::Identity(7, 7),
                                               attn::MatrixD::Identity(5, 5));
    for (attn::Index r = 0; r <= 5; ++r) {
        const double tail = std::sqrt(s.tail(5 - r).squaredNorm() / s.squaredNorm());
        EXPECT_NEAR(e[static_cast<std::size_t>(r)], tail, 1e-12) << r;
        // And the factorisation itself attains it.
        const attn::MatrixD Wr = attn::factorize_bilinear(W, r).product();
        EXPECT_NEAR((W - Wr).norm() / W.norm(), tail, 1e-12);
    }
}

TEST(LowRank, RankOfALowRankMatrix) {
    std::mt19937 gen(24);
    const attn::MatrixD W = random_matrix_d(gen, 6, 2) * random_matrix_d(gen, 2, 6);  // rank 2
    const attn::VectorD s = attn::singular_values(W);
    EXPECT_LT(s[2], 1e-10 * s[0]);
    const auto e =
        attn::low_rank_score_errors(W, random_matrix_d(gen, 9, 6), random_matrix_d(gen, 9, 6));
    EXPECT_LT(e[2], 1e-10);
}

TEST(LowRank, BadArguments) {
    attn::MatrixD W = attn::MatrixD::Identity(3, 4);
    EXPECT_THROW(attn::factorize_bilinear(W, 4), attn::ArgumentError);
    EXPECT_THROW(attn::factorize_bilinear(W, -1), attn::ArgumentError);
    EXPECT_THROW(attn::low_rank_score_errors(W, attn::MatrixD(2, 4), attn::MatrixD(2, 4)),
                 attn::ShapeError);
    W(0, 0) = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(attn::singular_values(W), attn::NonFiniteError);
    const auto z = attn::low_rank_score_errors(
        attn::MatrixD::Zero(2, 2), attn::MatrixD::Identity(2, 2), attn::MatrixD::Identity(2, 2));
    for (double x : z)
        EXPECT_EQ(x, 0.0);
}

}  // namespace
