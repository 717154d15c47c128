// Streamed scenes past the fused pass's blocks and tails (more than 1024 keys, partial tiles and
// packets), row by row against the full computation, and stopped between tiles when cancelled.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "attn/error.hpp"
#include "attn/progress.hpp"
#include "scene_streamed_util.hpp"

namespace {

using attn::Index;
using namespace streamed_test;

TEST(StreamedScene, LongRowsMatchTheFullPathRowByRow) {
    // Past the fused pass's blocks: more than 1024 keys (its lanes flush per 1024), a query
    // count that leaves a partial tile of the dot kernel, keys that leave a partial packet; the
    // dot kernel (dot, general) and scores_into (rbf); with and without a mask. Every row's
    // statistics, the stored normalisers (through an exact region) and the overview agree with
    // the full computation within 1e-6.
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
            for (std::size_t i = 0; i < a.size(); ++i) {
                ASSERT_EQ(a[i].empty, b[i].empty) << at << " row " << i;
                EXPECT_TRUE(near(a[i].max_weight, b[i].max_weight, 1e-6)) << at << " row " << i;
                EXPECT_TRUE(near(a[i].mean_distance, b[i].mean_distance, 1e-6)) << at << i;
                EXPECT_TRUE(near(a[i].entropy, b[i].entropy, 1e-5)) << at << " row " << i;
                EXPECT_TRUE(near(a[i].score_mean, b[i].score_mean, 1e-6)) << at << " row " << i;
                EXPECT_TRUE(near(a[i].score_var, b[i].score_var, 1e-5)) << at << " row " << i;
            }
            const Index hi = Index(h), nq = st.query_count(), nk = st.key_count();
            for (const auto mode : {attn::Aggregation::Max, attn::Aggregation::Mean}) {
                // The overview (reduced from the pass's block sums) and an exact region (from
                // Q, K and the stored normalisers), each against brute force.
                expectBruteForce(st.weights_blocks(hi, 0, nq, 0, nk, 100, 100, mode), full.heads[h],
                                 mode, at + " overview");
                expectBruteForce(st.weights_blocks(hi, 333, 37, 1001, 190, 37, 190, mode),
                                 full.heads[h], mode, at + " region");
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
