// Streamed scenes (no n × n matrix kept) and the full computation against the float64 reference
// (float32 bounds, float_reference.hpp), for random sizes, score kinds, temperatures and every
// mask including empty rows: block pixels of any region, statistics from the streaming pass and
// selected rows; the hard limit's one-hot rows against the full path's.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "../float_reference.hpp"
#include "../scene_streamed_util.hpp"
#include "../test_util.hpp"
#include "attn/attention/aggregate.hpp"
#include "attn/scene/scene.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace {

using attn::Index;
using namespace streamed_test;

struct Drawn {
    attn::SceneSpec spec;
    Index nq = 0, nk = 0;
};

/// A random scene: size, heads, score, temperature, every mask kind; some rows see no key.
Drawn draw(attn::Rng& rng, attn::MaskKind kind) {
    Drawn d;
    const int n = 20 + static_cast<int>(rng.uniform() * 180);
    d.spec.text = words(n, rng);
    d.nq = d.nk = n;
    if (rng.uniform() < 0.3) {
        const int m = 10 + static_cast<int>(rng.uniform() * 150);
        d.spec.cross_text = words(m, rng);
        d.nk = m;
    }
    d.spec.heads = rng.uniform() < 0.5 ? 2 : 4;
    d.spec.d_model = d.spec.heads * (4 + static_cast<int>(rng.uniform() * 8));
    d.spec.kv_heads = rng.uniform() < 0.3 ? 1 : 0;
    const attn::ScoreKind kinds[] = {attn::ScoreKind::Dot, attn::ScoreKind::General,
                                     attn::ScoreKind::Additive, attn::ScoreKind::Rbf};
    d.spec.score = kinds[static_cast<int>(rng.uniform() * 4)];
    const double t = rng.uniform();
    d.spec.temperature = t < 0.15 ? 0.f : static_cast<float>(0.3 + 2 * t);
    d.spec.seed = rng.next();
    attn::MaskSpec& m = d.spec.mask;
    m.kind = kind;
    m.window = 1 + static_cast<Index>(rng.uniform() * 5);
    if (kind == attn::MaskKind::GlobalWindow) m.global = {0, std::min(d.nq, d.nk) / 2};
    if (kind == attn::MaskKind::Padding)
        for (Index j = 0; j < d.nk; ++j)
            m.key_valid.push_back(rng.uniform() < 0.7);
    if (kind == attn::MaskKind::Custom) {
        m.custom.resize(d.nq, d.nk);
        for (Index i = 0; i < d.nq; ++i)
            for (Index j = 0; j < d.nk; ++j)
                m.custom(i, j) = rng.uniform() < 0.5;
        m.custom.row(d.nq / 3).setConstant(false);  // empty rows
        m.custom.row(d.nq - 1).setConstant(false);
    }
    return d;
}

TEST(StreamedScene, MatchesTheFullComputationForRandomScenes) {
    attn::Rng rng(2026);
    const attn::MaskKind masks[] = {attn::MaskKind::None,          attn::MaskKind::Causal,
                                    attn::MaskKind::AntiCausal,    attn::MaskKind::Padding,
                                    attn::MaskKind::SlidingWindow, attn::MaskKind::GlobalWindow,
                                    attn::MaskKind::Custom};
    int compared_rows = 0, empty_rows = 0;
    for (int round = 0; round < 3; ++round)
        for (const attn::MaskKind kind : masks) {
            const Drawn d = draw(rng, kind);
            const attn::SceneResult full =
                attn::compute_scene(d.spec, nullptr, attn::Storage::Stages);
            // A coarse stored overview: regions then take both the exact path and the
            // reduction of the overview.
            const attn::SceneResult st = attn::compute_scene(
                d.spec, nullptr, attn::Storage::Streamed, nullptr, 3 + int(rng.uniform() * 40));
            const std::string at = std::string(attn::to_string(kind)) + " round " +
                                   std::to_string(round) + " " + std::to_string(d.nq) + "x" +
                                   std::to_string(d.nk);
            ASSERT_EQ(st.storage, attn::Storage::Streamed) << at;
            // Soft rows against the float64 reference within float32 bounds; the hard limit's
            // one-hot rows (exact values) against the full path's.
            const bool soft = d.spec.temperature > 0;
            for (std::size_t h = 0; h < full.heads.size(); ++h) {
                const attn::HeadResult& sh = st.heads[h];
                const Index hi = Index(h);
                EXPECT_TRUE(sh.streamed()) << at;
                EXPECT_EQ(sh.weights.size(), 0) << at;  // the point: nothing n × n
                EXPECT_EQ(sh.empty_rows, full.heads[h].empty_rows) << at;
                for (const auto& e : sh.empty_rows)
                    empty_rows += e;
                const std::vector<fref::Row> want =
                    soft ? fref::scene_rows(full, d.spec, hi) : std::vector<fref::Row>{};
                // Statistics from the streaming pass.
                if (soft) {
                    fref::expect_head_stats(st.stats[h], want, at + " streamed");
                    fref::expect_head_stats(full.stats[h], want, at + " full");
                } else {
                    const attn::HeadStats &a = st.stats[h], &b = full.stats[h];
                    EXPECT_TRUE(near(a.max_weight, b.max_weight, 1e-6)) << at;
                    EXPECT_TRUE(near(a.mean_distance, b.mean_distance, 1e-6)) << at;
                }
                // Pixels: the whole head, and random regions, at random budgets.
                for (int k = 0; k < 4; ++k) {
                    Index r0 = 0, c0 = 0, nr = d.nq, nc = d.nk;
                    if (k > 0) {
                        r0 = Index(rng.uniform() * double(d.nq - 1));
                        c0 = Index(rng.uniform() * double(d.nk - 1));
                        nr = 1 + Index(rng.uniform() * double(d.nq - r0 - 1));
                        nc = 1 + Index(rng.uniform() * double(d.nk - c0 - 1));
                    }
                    const int br = 1 + int(rng.uniform() * 60), bc = 1 + int(rng.uniform() * 60);
                    for (const auto mode : {attn::Aggregation::Max, attn::Aggregation::Mean}) {
                        const std::string where = at + " region " + std::to_string(k);
                        const attn::AggregatedGrid sg =
                            st.weights_blocks(hi, r0, nr, c0, nc, br, bc, mode);
                        const attn::AggregatedGrid fg =
                            full.weights_blocks(hi, r0, nr, c0, nc, br, bc, mode);
                        EXPECT_EQ(sg.firstRow, r0) << where;
                        EXPECT_EQ(sg.regionCols, nc) << where;
                        EXPECT_LE(sg.rows, br) << where;  // never more cells than pixels
                        EXPECT_LE(sg.cols, bc) << where;
                        // What a view draws: the region or, as coarse as the stored overview,
                        // the overview's blocks around it.
                        const attn::AggregatedGrid dg =
                            st.drawn_blocks(hi, r0, nr, c0, nc, br, bc, mode);
                        EXPECT_LE(dg.firstRow, r0) << where;
                        EXPECT_GE(dg.firstCol + dg.regionCols, c0 + nc) << where;
                        EXPECT_LE(dg.rows, br) << where;
                        if (soft) {
                            fref::expect_grid(sg, want, mode, where + " streamed");
                            fref::expect_grid(fg, want, mode, where + " full");
                            fref::expect_grid(dg, want, mode, where + " drawn");
                            continue;
                        }
                        expectBruteForce(sg, full.heads[h], mode, where + " streamed");
                        expectBruteForce(fg, full.heads[h], mode, where + " full");
                        expectBruteForce(dg, full.heads[h], mode, where + " drawn");
                        if (sg.rowFactor == fg.rowFactor && sg.colFactor == fg.colFactor)
                            expectSameGrid(sg, fg, where);
                    }
                }
                // Selected rows.
                for (const Index i : {Index(0), d.nq / 3, d.nq - 1}) {
                    ++compared_rows;
                    const std::string row = at + " row " + std::to_string(i);
                    const Eigen::RowVectorXf w = st.weights_row(hi, i);
                    const Eigen::RowVectorXf ms = st.masked_row(hi, i);
                    const Eigen::RowVectorXf mf = full.masked_row(hi, i);
                    for (Index j = 0; j < d.nk; ++j)
                        EXPECT_EQ(st.is_masked(hi, i, j), full.is_masked(hi, i, j)) << row;
                    if (soft) {
                        const fref::Row& r = want[std::size_t(i)];
                        fref::expect_weights(w.data(), r, row + " streamed");
                        fref::expect_weights(full.heads[h].weights.row(i).data(), r, row);
                        for (Index j = 0; j < d.nk; ++j) {
                            const auto u = std::size_t(j);
                            EXPECT_TRUE(fref::within(ms(j), r.z[u], r.z_bound[u])) << row;
                            EXPECT_TRUE(fref::within(mf(j), r.z[u], r.z_bound[u])) << row;
                        }
                        fref::expect_output(st.output_row(hi, i), full, hi, r, row + " streamed");
                        fref::expect_output(full.output_row(hi, i), full, hi, r, row + " full");
                        continue;
                    }
                    for (Index j = 0; j < d.nk; ++j) {
                        EXPECT_TRUE(near(w(j), full.heads[h].weights(i, j), 1e-6)) << row;
                        EXPECT_TRUE(near(ms(j), mf(j), 1e-6)) << row;
                    }
                }
            }
        }
    EXPECT_GT(compared_rows, 100);
    EXPECT_GT(empty_rows, 0);  // the custom masks did produce rows with no visible key
}

TEST(StreamedScene, HandComputedOverview) {
    // One head, d_k 2, identity projections, no scaling: raw = X Xᵀ, weights by hand.
    attn::SceneSpec spec;
    spec.tokens = {"a", "b", "c", "d"};
    spec.d_model = 2;
    spec.heads = 1;
    spec.scale = false;
    spec.positional = attn::PositionalKind::None;
    attn::Matrix E(4, 2);
    E << 1, 0, 0, 1, 1, 1, 0, 0;
    spec.embeddings = std::make_shared<const attn::Matrix>(E);
    attn::MultiHeadWeights w;
    w.Wq = w.Wk = w.Wv = w.Wo = attn::Matrix::Identity(2, 2);
    spec.weights = std::make_shared<const attn::MultiHeadWeights>(w);
    spec.mask.kind = attn::MaskKind::Causal;
    const attn::SceneResult r = attn::compute_scene(spec, nullptr, attn::Storage::Streamed);
    // Row b sees a, b with scores 0, 1; row c sees a, b, c with 1, 1, 2; row d sees 4 zeros.
    const double e = std::exp(1.0);
    const double b1 = e / (1 + e), c2 = e * e / (2 * e + e * e), c0 = e / (2 * e + e * e);
    const attn::AggregatedGrid mx = r.weights_blocks(0, 0, 4, 0, 4, 2, 2, attn::Aggregation::Max);
    ASSERT_EQ(mx.rows, 2);
    ASSERT_EQ(mx.rowFactor, 2);
    EXPECT_NEAR(mx.at(0, 0), std::max(1.0, b1), 1e-6);  // row a: weight 1 on itself
    EXPECT_TRUE(mx.isMasked(0, 1));                     // keys c, d unseen by a and b
    EXPECT_NEAR(mx.at(1, 0), std::max(c0, 0.25), 1e-6);
    EXPECT_NEAR(mx.at(1, 1), std::max(c2, 0.25), 1e-6);
    const attn::AggregatedGrid mean =
        r.weights_blocks(0, 0, 4, 0, 4, 2, 2, attn::Aggregation::Mean);
    EXPECT_NEAR(mean.at(0, 0), (1 + (1 - b1) + b1) / 4, 1e-6);
    EXPECT_NEAR(mean.at(1, 1), (c2 + 0.25 + 0.25) / 4, 1e-6);
    // A single cell region at full resolution.
    const attn::AggregatedGrid one =
        r.weights_blocks(0, 2, 1, 2, 1, 512, 512, attn::Aggregation::Max);
    EXPECT_EQ(one.rows, 1);
    EXPECT_NEAR(one.at(0, 0), c2, 1e-6);
    EXPECT_NEAR(r.weight(0, 1, 1), b1, 1e-6);
    EXPECT_NEAR(r.stats[0].rows[0].entropy, 0.0, 1e-9);
    EXPECT_NEAR(r.stats[0].rows[3].entropy, std::log(4.0), 1e-6);
    EXPECT_THROW(r.weights_blocks(0, 3, 2, 0, 1, 8, 8, attn::Aggregation::Max),
                 attn::ArgumentError);
}

TEST(StreamedScene, PreviewSamplesEveryStrideThQuery) {
    attn::SceneSpec spec;
    attn::Rng rng(77);
    spec.text = words(150, rng);
    spec.mask.kind = attn::MaskKind::Causal;
    const attn::SceneResult full = attn::compute_scene(spec, nullptr, attn::Storage::Stages);
    const attn::SceneResult pre =
        attn::compute_scene(spec, nullptr, attn::Storage::Streamed, nullptr, 1024, 4);
    EXPECT_EQ(pre.preview_stride, 4);
    for (std::size_t h = 0; h < full.heads.size(); ++h) {
        const attn::HeadResult& f = full.heads[h];
        // Statistics: the average over the sampled queries 0, 4, 8, ….
        double entropy = 0;
        int rows = 0;
        for (Index i = 0; i < 150; i += 4, ++rows)
            entropy += full.stats[h].rows[std::size_t(i)].entropy;
        EXPECT_NEAR(pre.stats[h].entropy, entropy / rows, 1e-5);
        // Blocks of 10 × 10: max and mean over the sampled rows of each block.
        for (const auto mode : {attn::Aggregation::Max, attn::Aggregation::Mean}) {
            const attn::AggregatedGrid g =
                pre.weights_blocks(Index(h), 0, 150, 0, 150, 15, 15, mode);
            ASSERT_EQ(g.rowFactor, 10);
            for (int r = 0; r < g.rows; ++r)
                for (int c = 0; c < g.cols; ++c) {
                    double best = 0, sum = 0;
                    int n = 0;
                    for (Index i = r * 10; i < r * 10 + 10; ++i) {
                        if (i % 4) continue;
                        ++n;
                        for (Index j = c * 10; j < c * 10 + 10; ++j) {
                            best = std::max(best, double(f.weights(i, j)));
                            sum += f.weights(i, j);
                        }
                    }
                    const double want = mode == attn::Aggregation::Max ? best : sum / (n * 10);
                    EXPECT_TRUE(near(g.at(r, c), want, 1e-6)) << r << "," << c;
                }
        }
        // Rows stay exact: recomputed from Q and K.
        const Eigen::RowVectorXf w = pre.weights_row(Index(h), 33);
        for (Index j = 0; j < 150; ++j)
            EXPECT_TRUE(near(w(j), f.weights(33, j), 1e-6));
    }
}

TEST(BlockSums, CoarserGridsAreExactReductions) {
    attn::Rng rng(5);
    for (int round = 0; round < 20; ++round) {
        const Index n = 5 + Index(rng.uniform() * 300), m = 5 + Index(rng.uniform() * 300);
        const attn::Matrix w = rng.normal_matrix(n, m).cwiseAbs().cast<float>();
        attn::BoolMatrix visible(n, m);
        for (Index i = 0; i < n; ++i)
            for (Index j = 0; j < m; ++j)
                visible(i, j) = rng.uniform() < 0.8;
        const attn::Matrix shown = visible.select(w, attn::Matrix::Zero(n, m));
        attn::BlockSums s;
        s.reset(n, m, 7 + int(rng.uniform() * 60));
        for (Index i = 0; i < n; ++i)
            s.add_row(i, shown.row(i).data(), visible.row(i).data());
        s.finish();
        const int budget = 1 + int(rng.uniform() * 20);
        for (const auto mode : {attn::Aggregation::Max, attn::Aggregation::Mean}) {
            const attn::AggregatedGrid g = attn::reduce_blocks(s, budget, budget, mode);
            EXPECT_EQ(g.rowFactor % s.rowFactor, 0);
            EXPECT_LE(g.rows, budget);
            attn::HeadResult ref;
            ref.weights = shown;
            ref.raw =  // no mask, multiplier 1: these are the masked scores
                visible.select(attn::Matrix::Zero(n, m), attn::Matrix::Constant(n, m, -INFINITY));
            expectBruteForce(g, ref, mode, "round " + std::to_string(round));
        }
    }
}

TEST(MaskBlocks, BlocksEqualTheFullMask) {
    attn::Rng rng(9);
    for (auto [nq, nk] : {std::pair<Index, Index>{12, 12}, {5, 12}, {12, 7}})
        for (const attn::MaskSpec& spec : testutil::all_masks(nq, nk, rng)) {
            const attn::BoolMatrix full = attn::build_mask(spec, nq, nk);
            for (Index r0 = 0; r0 < nq; r0 += 3)
                for (Index c0 = 0; c0 < nk; c0 += 4) {
                    const Index nr = std::min<Index>(4, nq - r0), nc = std::min<Index>(5, nk - c0);
                    EXPECT_EQ(attn::build_mask_block(spec, nq, nk, r0, nr, c0, nc),
                              attn::BoolMatrix(full.block(r0, c0, nr, nc)))
                        << attn::to_string(spec.kind);
                }
        }
}

}  // namespace
