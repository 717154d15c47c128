// Helpers of the streamed-scene tests: random words, relative comparison, brute-force blocks.
// GPL-3.0-or-later.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/attention/aggregate.hpp"
#include "attn/scene/scene.hpp"
#include "attn/util/random.hpp"

namespace streamed_test {

using attn::Index;

inline std::string words(int n, attn::Rng& rng) {
    std::string text;
    for (int i = 0; i < n; ++i) {
        text += 'w';
        text += std::to_string(static_cast<int>(rng.uniform() * 40));
        text += ' ';
    }
    return text;
}

/// |a − b| ≤ tol · max(1, |b|), with equal infinities.
inline ::testing::AssertionResult near(double a, double b, double tol) {
    if (std::isinf(a) || std::isinf(b)) {
        if (a == b) return ::testing::AssertionSuccess();
    } else if (std::abs(a - b) <= tol * std::max(1.0, std::abs(b))) {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << a << " vs " << b;
}

inline void expectSameGrid(const attn::AggregatedGrid& s, const attn::AggregatedGrid& f,
                           const std::string& at) {
    ASSERT_EQ(s.rows, f.rows) << at;
    ASSERT_EQ(s.cols, f.cols) << at;
    ASSERT_EQ(s.rowFactor, f.rowFactor) << at;
    ASSERT_EQ(s.colFactor, f.colFactor) << at;
    EXPECT_EQ(s.firstRow, f.firstRow) << at;
    EXPECT_EQ(s.firstCol, f.firstCol) << at;
    EXPECT_EQ(s.masked, f.masked) << at;
    for (std::size_t k = 0; k < f.values.size(); ++k)
        EXPECT_TRUE(near(s.values[k], f.values[k], 1e-6)) << at << " cell " << k;
}

/// Brute force over g's blocks from the full weights and masked scores (max over visible cells).
inline void expectBruteForce(const attn::AggregatedGrid& g, const attn::HeadResult& full,
                             attn::Aggregation mode, const std::string& at) {
    ASSERT_EQ(g.rows, int((g.regionRows + g.rowFactor - 1) / g.rowFactor)) << at;
    ASSERT_EQ(g.cols, int((g.regionCols + g.colFactor - 1) / g.colFactor)) << at;
    const Index r_end = g.firstRow + g.regionRows, c_end = g.firstCol + g.regionCols;
    const attn::Matrix masked = full.masked_matrix();
    for (int r = 0; r < g.rows; ++r)
        for (int c = 0; c < g.cols; ++c) {
            double best = 0, sum = 0;
            int cells = 0, visible = 0;
            const Index i0 = g.firstRow + Index(r) * g.rowFactor;
            const Index j0 = g.firstCol + Index(c) * g.colFactor;
            for (Index i = i0; i < std::min(r_end, i0 + g.rowFactor); ++i)
                for (Index j = j0; j < std::min(c_end, j0 + g.colFactor); ++j) {
                    ++cells;
                    sum += full.weights(i, j);
                    if (std::isinf(masked(i, j))) continue;
                    best = visible++ ? std::max(best, double(full.weights(i, j)))
                                     : double(full.weights(i, j));
                }
            EXPECT_EQ(g.isMasked(r, c), visible == 0) << at;
            const double want = mode == attn::Aggregation::Max ? best : sum / cells;
            EXPECT_TRUE(near(g.at(r, c), want, 1e-6)) << at << " block " << r << "," << c;
        }
}

}  // namespace streamed_test
