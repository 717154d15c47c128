// Tests of the "rank-collapse" lens.
#include <gtest/gtest.h>

#include "attn/lenses/rank_collapse.hpp"

namespace {

using namespace attn;
using namespace attn::lenses;

TEST(LensRankCollapse, DistanceOfRankOneMatrixIsZero) {
    MatrixD X(3, 2);
    X << 1, 2, 1, 2, 1, 2;
    EXPECT_NEAR(rank_one_distance(X), 0.0, 1e-15);
    MatrixD Y(2, 1);
    Y << 1, -1;  // mean zero: the whole matrix is the deviation
    EXPECT_NEAR(rank_one_distance(Y), 1.0, 1e-15);
    EXPECT_EQ(rank_one_distance(MatrixD::Zero(2, 2)), 0.0);
}

TEST(LensRankCollapse, PureAttentionCollapsesResidualDoesNot) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        RankCollapseConfig c;
        c.seed = seed;
        c.depth = 12;
        c.residual_scale = 0;  // 1/√12
        const RankCollapseCurve r = rank_collapse(c);
        ASSERT_EQ(r.pure.size(), 13u);
        EXPECT_DOUBLE_EQ(r.pure[0], r.residual[0]);
        // Without residuals the distance falls with depth, to (nearly) rank one.
        EXPECT_LT(r.pure[4], 0.5 * r.pure[0]);
        EXPECT_LT(r.pure[12], 1e-3 * r.pure[0]);
        // Monotone until it reaches rounding level (≈ 1e-16, where it jitters).
        for (std::size_t l = 1; l < r.pure.size(); ++l) {
            if (r.pure[l - 1] > 1e-12) {
                EXPECT_LT(r.pure[l], r.pure[l - 1]) << "layer " << l;
            }
        }
        // With (1/√L-scaled) residuals it stays bounded away from zero.
        for (double v : r.residual)
            EXPECT_GT(v, 0.5 * r.residual[0]) << "seed " << seed;
    }
}

}  // namespace
