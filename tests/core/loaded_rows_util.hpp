// Shared checks of the loaded-long-file tests: a scene read row by row from a file (streamed)
// against the same numbers converted to matrices (scene_loaded_rows_test,
// scene_loaded_sources_test).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <utility>
#include <vector>

#include "attn/scene/scene.hpp"
#include "float_reference.hpp"

namespace loaded_rows {

/// The scenes of one spec over a file read row by row and over the same file converted.
struct Pair {
    attn::SceneResult mapped, memory;
};

/// spec computed over `mapped` data and over `memory` data.
inline Pair scene_pair(attn::SceneSpec spec, decltype(spec.data) mapped,
                       decltype(spec.data) memory) {
    spec.data = std::move(mapped);
    Pair p{attn::compute_scene(spec), {}};
    spec.data = std::move(memory);
    p.memory = attn::compute_scene(spec);
    return p;
}

inline void expect_near_grid(const attn::AggregatedGrid& a, const attn::AggregatedGrid& b) {
    ASSERT_EQ(a.rows, b.rows);
    ASSERT_EQ(a.cols, b.cols);
    double worst = 0;
    int masked_differ = 0;
    for (int r = 0; r < a.rows; ++r)
        for (int c = 0; c < a.cols; ++c) {
            worst = std::max(worst, std::abs(a.at(r, c) - b.at(r, c)));
            masked_differ += a.isMasked(r, c) != b.isMasked(r, c);
        }
    EXPECT_LE(worst, 1e-6);
    EXPECT_EQ(masked_differ, 0);
}

/// A region of both scenes: [r0, r0 + nr) × [c0, c0 + nc) at most `cells` blocks a side.
struct Region {
    attn::Index r0, nr, c0, nc;
    int cells;
};

/// The streamed scene m and the converted scene f of the same file agree: empty rows,
/// statistics, the whole-head overview and `region` by max and mean, and the rows of `queries`
/// (raw and masked too for raw scores), within 1e-6.
inline void expect_same(const attn::SceneResult& m, const attn::SceneResult& f, bool scores,
                        const Region& region, std::initializer_list<attn::Index> queries) {
    using attn::Index;
    ASSERT_EQ(m.storage, attn::Storage::Streamed);
    ASSERT_NE(f.storage, attn::Storage::Streamed);
    ASSERT_EQ(m.heads.size(), f.heads.size());
    EXPECT_EQ(m.has_scores, scores);
    const Index nq = m.query_count(), nk = m.key_count();
    ASSERT_EQ(nq, f.query_count());
    ASSERT_EQ(nk, f.key_count());
    for (Index h = 0; h < Index(m.heads.size()); ++h) {
        const auto k = static_cast<std::size_t>(h);
        EXPECT_EQ(m.heads[k].weights.size(), 0) << "nothing n × n is held";
        EXPECT_EQ(m.heads[k].empty_rows, f.heads[k].empty_rows);
        // Head statistics: the same per-row values, averaged alike — within float32 rounding
        // of their size (a mean distance near 700 is ±4e-5 in float32, not ±1e-6): twice the
        // bound of one float32 statistics pass (its lanes' sums, float_reference.hpp).
        const auto same = [](double a, double b) {
            return fref::within(a, b, 2 * fref::kSumSlack * fref::kEps * std::abs(b) + 1e-9);
        };
        const attn::HeadStats &ms = m.stats[k], &fs = f.stats[k];
        EXPECT_TRUE(same(ms.entropy, fs.entropy)) << "entropy";
        EXPECT_TRUE(same(ms.effective_keys, fs.effective_keys)) << "effective keys";
        EXPECT_TRUE(same(ms.max_weight, fs.max_weight)) << "max weight";
        EXPECT_TRUE(same(ms.mean_distance, fs.mean_distance)) << "mean distance";
        EXPECT_TRUE(same(ms.score_mean, fs.score_mean)) << "score mean";
        // The whole-head overview (the stored block sums) and an unaligned zoomed region
        // (recomputed from the file's rows), by max and by mean.
        for (const attn::Aggregation mode : {attn::Aggregation::Max, attn::Aggregation::Mean}) {
            expect_near_grid(m.drawn_blocks(h, 0, nq, 0, nk, 700, 700, mode),
                             f.weights_blocks(h, 0, nq, 0, nk, 700, 700, mode));
            const Region& g = region;
            expect_near_grid(m.weights_blocks(h, g.r0, g.nr, g.c0, g.nc, g.cells, g.cells, mode),
                             f.weights_blocks(h, g.r0, g.nr, g.c0, g.nc, g.cells, g.cells, mode));
        }
        for (const Index i : queries) {
            EXPECT_LE((m.weights_row(h, i) - f.weights_row(h, i)).cwiseAbs().maxCoeff(), 1e-6);
            if (!scores) continue;
            EXPECT_EQ(m.raw_row(h, i), f.raw_row(h, i));
            // Both scenes' weights against the softmax of the file's scores in double.
            std::vector<bool> visible(static_cast<std::size_t>(nk));
            for (Index j = 0; j < nk; ++j)
                visible[static_cast<std::size_t>(j)] = !f.is_masked(h, i, j);
            const fref::Row want =
                fref::scores_row(f.raw_row(h, i), f.heads[k].multiplier, visible, i);
            fref::expect_weights(m.weights_row(h, i).data(), want, "streamed");
            fref::expect_weights(f.weights_row(h, i).data(), want, "converted");
            const Eigen::RowVectorXf a = m.masked_row(h, i), b = f.masked_row(h, i);
            for (Index j = 0; j < nk; ++j)
                ASSERT_TRUE(a(j) == b(j) || std::abs(a(j) - b(j)) <= 1e-6) << i << "," << j;
            EXPECT_EQ(m.is_masked(h, i, nk - 1), f.is_masked(h, i, nk - 1));
        }
    }
}

}  // namespace loaded_rows
