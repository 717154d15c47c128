// Streamed scenes past the fused pass's blocks and tails (more than 1024 keys, partial tiles and
// packets), row by row against the float64 reference and the full computation, and stopped
// between tiles when cancelled.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "../float_reference.hpp"
#include "../scene_streamed_util.hpp"
#include "attn/util/error.hpp"
#include "attn/util/progress.hpp"

namespace {

using attn::Index;
using namespace streamed_test;

TEST(StreamedScene, LongRowsMatchTheFullPathRowByRow) {
    // Past the fused pass's blocks: more than 1024 keys (its lanes flush per 1024), a query
    // count that leaves a partial tile of the dot kernel, keys that leave a partial packet; the
    // dot kernel (dot, general) and scores_into (rbf); with and without a mask. Every row's
    // statistics of both paths against the float64 reference within a float32 bound (and of
    // each other within twice that); the stored normalisers (through an exact region) and the
    // overview against the reference's blocks.
    attn::Rng rng(4242);
    struct Case {
        attn::ScoreKind score;
        attn::MaskKind mask;
        float temperature;
    };
    for (const Case c : {Case{attn::ScoreKind::Dot, attn::MaskKind::None, 1.f},
                         Case{attn::ScoreKind::Dot, attn::MaskKind::Causal, 0.7f},
                         Case{attn::ScoreKind::General, attn::MaskKind::SlidingWindow, 1.3f},
                         Case{attn::ScoreKind::Rbf, attn::MaskKind::None, 1.f}}) {
        attn::SceneSpec spec;
        spec.text = words(1203, rng);
        spec.cross_text = c.mask == attn::MaskKind::None ? words(1301, rng) : std::string();
        spec.heads = 2;
        spec.d_model = 32;
        spec.score = c.score;
        spec.temperature = c.temperature;
        spec.mask.kind = c.mask;
        spec.mask.window = 40;
        const attn::SceneResult full = attn::compute_scene(spec, nullptr, attn::Storage::Stages);
        const attn::SceneResult st = attn::compute_scene(spec, nullptr, attn::Storage::Streamed);
        const std::string at =
            std::string(attn::to_string(c.score)) + " " + std::string(attn::to_string(c.mask));
        for (std::size_t h = 0; h < full.heads.size(); ++h) {
            const auto& a = st.stats[h].rows;
            const auto& b = full.stats[h].rows;
            ASSERT_EQ(a.size(), b.size()) << at;
            std::vector<fref::Row> want;
            for (std::size_t i = 0; i < a.size(); ++i) {
                want.push_back(fref::scene_row(full, spec, Index(h), Index(i)));
                const fref::Row& w = want.back();
                const std::string row = at + " row " + std::to_string(i);
                fref::expect_stats(a[i], w, row + " streamed");
                fref::expect_stats(b[i], w, row + " full");
                // Each path within the bound of the reference: of each other within twice.
                if (w.empty) continue;
                EXPECT_LE(std::abs(a[i].max_weight - b[i].max_weight), 2 * w.bound.max_weight)
                    << row;
                EXPECT_LE(std::abs(a[i].mean_distance - b[i].mean_distance),
                          2 * w.bound.mean_distance)
                    << row;
                EXPECT_LE(std::abs(a[i].entropy - b[i].entropy), 2 * w.bound.entropy) << row;
            }
            fref::expect_head_stats(st.stats[h], want, at + " streamed head");
            fref::expect_head_stats(full.stats[h], want, at + " full head");
            const Index hi = Index(h), nq = st.query_count(), nk = st.key_count();
            for (const auto mode : {attn::Aggregation::Max, attn::Aggregation::Mean}) {
                // The overview (reduced from the pass's block sums) and an exact region (from
                // Q, K and the stored normalisers), each against the reference's blocks.
                fref::expect_grid(st.weights_blocks(hi, 0, nq, 0, nk, 100, 100, mode), want, mode,
                                  at + " overview");
                fref::expect_grid(st.weights_blocks(hi, 333, 37, 1001, 190, 37, 190, mode), want,
                                  mode, at + " region");
            }
        }
    }
}

TEST(StreamedScene, CancelledBetweenTilesNotAtTheEndOfAHead) {
    // One head of 3000 queries is hundreds of tiles: a stop asked for after a few questions
    // ends the pass there (the progress itself is only reported per head).
    struct StopAfter : attn::Progress {
        mutable std::atomic<int> asked{0};
        void update(double) override {}
        bool cancelled() const override { return ++asked > 5; }
    };
    attn::Rng rng(31);
    attn::SceneSpec spec;
    spec.text = words(3000, rng);
    spec.heads = 1;
    StopAfter stop;
    EXPECT_THROW(attn::compute_scene(spec, &stop, attn::Storage::Streamed), attn::Cancelled);
    EXPECT_EQ(stop.asked.load(), 6);  // asked per tile, and the 6th answer stopped it
}

}  // namespace
