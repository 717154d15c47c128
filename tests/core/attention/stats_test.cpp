// Tests of attention statistics against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "attn/attention/stats.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::Matrix;
using Row = Eigen::RowVectorXf;

TEST(Stats, UniformRowHasEntropyLogN) {
    for (int n : {1, 2, 5, 64}) {
        const Row w = Row::Constant(n, 1.f / float(n));
        const attn::RowStats s = attn::row_stats(w, Row(0), 0);
        EXPECT_NEAR(s.entropy, std::log(double(n)), 1e-5);
        EXPECT_NEAR(s.effective_keys, double(n), 1e-4 * n);
        EXPECT_NEAR(s.max_weight, 1.0 / n, 1e-7);
        // From position 0 the mean distance is the mean index (n − 1) / 2.
        EXPECT_NEAR(s.mean_distance, (n - 1) / 2.0, 1e-4);
        EXPECT_FALSE(s.empty);
    }
}

TEST(Stats, OneHotRow) {
    Row w = Row::Zero(6);
    w(4) = 1.f;
    const attn::RowStats s = attn::row_stats(w, Row(0), 1);
    EXPECT_EQ(s.entropy, 0.0);
    EXPECT_EQ(s.effective_keys, 1.0);
    EXPECT_EQ(s.max_weight, 1.0);
    EXPECT_EQ(s.mean_distance, 3.0);
}

TEST(Stats, HandComputedRow) {
    Row w(4), scores(4);
    w << 0.5f, 0.25f, 0.25f, 0.f;
    scores << 1.f, 3.f, 5.f, -std::numeric_limits<float>::infinity();
    const attn::RowStats s = attn::row_stats(w, scores, 2);
    const double h = -(0.5 * std::log(0.5) + 2 * 0.25 * std::log(0.25));  // 1.5 log 2
    EXPECT_NEAR(s.entropy, h, 1e-7);
    EXPECT_NEAR(s.effective_keys, std::exp(h), 1e-6);
    EXPECT_DOUBLE_EQ(s.max_weight, 0.5);
    EXPECT_DOUBLE_EQ(s.mean_distance, 0.5 * 2 + 0.25 * 1 + 0.25 * 0);
    // The masked key is left out: scores 1, 3, 5 → mean 3, population variance 8/3.
    EXPECT_DOUBLE_EQ(s.score_mean, 3.0);
    EXPECT_NEAR(s.score_var, 8.0 / 3.0, 1e-12);
}

TEST(Stats, EmptyRowAndHeadAverages) {
    attn::HeadResult head;
    head.weights.resize(3, 2);
    head.weights << 0.5f, 0.5f,  //
        0, 0,                    //
        1, 0;
    // The masked scores are derived: raw · multiplier (1) with −inf where the mask forbids.
    head.raw.resize(3, 2);
    head.raw << 2, 2, 0, 0, 4, 0;
    head.mask.kind = attn::MaskKind::Custom;
    head.mask.custom.resize(3, 2);
    head.mask.custom << true, true, false, false, true, false;
    const attn::HeadStats s = attn::head_stats(head);
    ASSERT_EQ(s.rows.size(), 3u);
    EXPECT_TRUE(s.rows[1].empty);
    EXPECT_EQ(s.rows[1].entropy, 0.0);
    // Averages over the two non-empty rows only.
    EXPECT_NEAR(s.entropy, std::log(2.0) / 2, 1e-7);
    EXPECT_NEAR(s.effective_keys, 1.5, 1e-6);
    EXPECT_NEAR(s.max_weight, 0.75, 1e-7);
    // Row 0 from position 0: 0.5 · 1; row 2 from position 2: 1 · 2.
    EXPECT_NEAR(s.mean_distance, (0.5 + 2.0) / 2, 1e-7);
    EXPECT_NEAR(s.score_mean, 3.0, 1e-7);
    EXPECT_NEAR(s.score_var, 0.0, 1e-7);
    const attn::HeadStats w = attn::weights_stats(head.weights);
    EXPECT_NEAR(w.entropy, s.entropy, 1e-12);
    EXPECT_EQ(w.score_mean, 0.0);
}

TEST(Stats, Errors) {
    EXPECT_THROW(attn::row_stats(Row::Ones(3), Row::Ones(2), 0), attn::ShapeError);
    Row n = Row::Constant(2, 0.5f);
    n(1) = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(attn::row_stats(n, Row(0), 0), attn::NonFiniteError);
    attn::HeadResult h;
    h.weights = Matrix::Ones(2, 2);
    h.raw = Matrix::Ones(3, 2);
    EXPECT_THROW(attn::head_stats(h), attn::ShapeError);
}

}  // namespace
