// What a change of scene recomputes: restart_from's rule for every control, and recompute_scene
// doing exactly that much (stage counters) with numbers bit-identical to a full computation.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attn/scene/scene.hpp"
#include "attn/util/random.hpp"
#include "attn/util/stage_counters.hpp"

namespace {

using attn::Index;
using attn::Matrix;
using attn::SceneRestart;
using attn::SceneSpec;
using attn::StageCounts;
using attn::Storage;

struct Control {
    std::string name;
    std::function<void(SceneSpec&)> change;
    SceneRestart expected;
};

std::vector<Control> controls() {
    using R = SceneRestart;
    return {
        {"temperature", [](SceneSpec& s) { s.temperature = 0.6f; }, R::Softmax},
        {"hard temperature", [](SceneSpec& s) { s.temperature = 0.f; }, R::Softmax},
        {"scaling", [](SceneSpec& s) { s.scale = !s.scale; }, R::Softmax},
        {"causal mask", [](SceneSpec& s) { s.mask.kind = attn::MaskKind::Causal; }, R::Softmax},
        {"window mask",
         [](SceneSpec& s) {
             s.mask.kind = attn::MaskKind::SlidingWindow;
             s.mask.window = 1;
         },
         R::Softmax},
        {"loaded d_k", [](SceneSpec& s) { s.data_dk = 7.f; }, R::Softmax},
        {"text", [](SceneSpec& s) { s.text += " again"; }, R::Full},
        {"tokens",
         [](SceneSpec& s) {
             s.tokens = {"a", "b"};
         },
         R::Full},
        {"cross text", [](SceneSpec& s) { s.cross_text = "keys here"; }, R::Full},
        {"d_model", [](SceneSpec& s) { s.d_model = 32; }, R::Full},
        {"heads", [](SceneSpec& s) { s.heads = 2; }, R::Full},
        {"kv heads", [](SceneSpec& s) { s.kv_heads = 1; }, R::Full},
        {"score", [](SceneSpec& s) { s.score = attn::ScoreKind::General; }, R::Full},
        {"sigma", [](SceneSpec& s) { s.sigma = 2.f; }, R::Full},
        {"positional", [](SceneSpec& s) { s.positional = attn::PositionalKind::None; }, R::Full},
        {"seed", [](SceneSpec& s) { s.seed = 7; }, R::Full},
        {"embeddings",
         [](SceneSpec& s) {
             s.embeddings = std::make_shared<const Matrix>(attn::Rng(1).normal_matrix(13, 64));
         },
         R::Full},
        {"merge words", [](SceneSpec& s) { s.merge_words = true; }, R::Full},
        {"layer", [](SceneSpec& s) { s.layer = 1; }, R::Full},
        {"component", [](SceneSpec& s) { s.component = 1; }, R::Full},
    };
}

TEST(SceneRestart, EachControlRestartsFromItsStage) {
    const SceneSpec base;
    EXPECT_EQ(attn::restart_from(base, base), SceneRestart::None);
    for (const Control& c : controls()) {
        SceneSpec changed = base;
        c.change(changed);
        EXPECT_EQ(attn::restart_from(base, changed), c.expected) << c.name;
        EXPECT_EQ(attn::restart_from(changed, base), c.expected) << c.name << " back";
    }
    // Two softmax-only changes together are still softmax-only; with a full one, full.
    SceneSpec both = base;
    both.temperature = 2.f;
    both.mask.kind = attn::MaskKind::AntiCausal;
    EXPECT_EQ(attn::restart_from(base, both), SceneRestart::Softmax);
    both.seed = 3;
    EXPECT_EQ(attn::restart_from(base, both), SceneRestart::Full);
}

bool same_bits(const Matrix& a, const Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           (a.size() == 0 || std::memcmp(a.data(), b.data(), sizeof(float) * a.size()) == 0);
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), sizeof(T) * a.size()) == 0);
}

/// Every number of the two results is the same, bit for bit.
void expect_identical(const attn::SceneResult& a, const attn::SceneResult& b,
                      const std::string& at) {
    ASSERT_EQ(a.heads.size(), b.heads.size()) << at;
    EXPECT_TRUE(same_bits(a.output, b.output)) << at;
    EXPECT_TRUE(same_bits(a.Q, b.Q) && same_bits(a.K, b.K) && same_bits(a.V, b.V)) << at;
    for (std::size_t h = 0; h < a.heads.size(); ++h) {
        const attn::HeadResult &x = a.heads[h], &y = b.heads[h];
        const std::string head = at + " head " + std::to_string(h);
        EXPECT_TRUE(same_bits(x.raw, y.raw)) << head;
        EXPECT_TRUE(same_bits(x.weights, y.weights)) << head;
        EXPECT_TRUE(same_bits(x.output, y.output)) << head;
        EXPECT_TRUE(same_bits(x.masked_matrix(), y.masked_matrix())) << head;
        EXPECT_EQ(x.empty_rows, y.empty_rows) << head;
        EXPECT_EQ(x.multiplier, y.multiplier) << head;
        EXPECT_TRUE(same_bits(x.row_max, y.row_max) && same_bits(x.row_inv_sum, y.row_inv_sum))
            << head;
        EXPECT_TRUE(same_bits(x.overview.sum, y.overview.sum) &&
                    same_bits(x.overview.max, y.overview.max))
            << head;
        ASSERT_EQ(a.stats[h].rows.size(), b.stats[h].rows.size()) << head;
        EXPECT_EQ(a.stats[h].entropy, b.stats[h].entropy) << head;
        EXPECT_EQ(a.stats[h].score_var, b.stats[h].score_var) << head;
        for (std::size_t i = 0; i < a.stats[h].rows.size(); ++i) {
            EXPECT_EQ(a.stats[h].rows[i].entropy, b.stats[h].rows[i].entropy) << head;
            EXPECT_EQ(a.stats[h].rows[i].score_mean, b.stats[h].rows[i].score_mean) << head;
        }
        for (Index i : {Index(0), a.query_count() - 1}) {
            EXPECT_EQ(a.weights_row(Index(h), i), b.weights_row(Index(h), i)) << head;
            EXPECT_EQ(a.masked_row(Index(h), i), b.masked_row(Index(h), i)) << head;
        }
    }
}

TEST(SceneRestart, SoftmaxControlsRecomputeOnlyFromTheScoresAndMatchAFullRun) {
    SceneSpec base;
    base.heads = 4;
    for (const Storage storage : {Storage::Stages, Storage::Weights, Storage::Streamed}) {
        const attn::SceneResult before = attn::compute_scene(base, nullptr, storage);
        for (const Control& c : controls()) {
            if (c.expected != SceneRestart::Softmax || c.name == "loaded d_k") continue;
            SceneSpec spec = base;
            c.change(spec);
            const std::string at = c.name + " storage " + std::to_string(int(storage));
            const StageCounts start = StageCounts::now();
            const attn::SceneResult fast =
                attn::recompute_scene(before, base, spec, nullptr, storage);
            const StageCounts did = StageCounts::now() - start;
            // No projections ever; the scores only where they were not kept.
            EXPECT_EQ(did.projections, 0u) << at;
            EXPECT_EQ(did.score_heads, storage == Storage::Stages ? 0u : 4u) << at;
            EXPECT_EQ(did.softmax_heads, 4u) << at;
            EXPECT_EQ(did.score_rows, 0u) << at;
            const StageCounts full_start = StageCounts::now();
            const attn::SceneResult full = attn::compute_scene(spec, nullptr, storage);
            const StageCounts full_did = StageCounts::now() - full_start;
            EXPECT_EQ(full_did.projections, 1u) << at;
            EXPECT_EQ(full_did.score_heads, 4u) << at;
            expect_identical(fast, full, at);
        }
    }
}

TEST(SceneRestart, OtherControlsRecomputeEverything) {
    const SceneSpec base;
    const attn::SceneResult before = attn::compute_scene(base, nullptr, Storage::Stages);
    for (const Control& c : controls()) {
        if (c.expected != SceneRestart::Full || c.name == "layer" || c.name == "component")
            continue;  // layer and component select loaded data
        SceneSpec spec = base;
        c.change(spec);
        const StageCounts start = StageCounts::now();
        const attn::SceneResult fast =
            attn::recompute_scene(before, base, spec, nullptr, Storage::Stages);
        const StageCounts did = StageCounts::now() - start;
        EXPECT_EQ(did.projections, 1u) << c.name;
        EXPECT_EQ(did.score_heads, std::uint64_t(spec.heads)) << c.name;
        expect_identical(fast, attn::compute_scene(spec, nullptr, Storage::Stages), c.name);
    }
}

TEST(SceneRestart, AResultOfAnotherStorageOrAPreviewIsNotReused) {
    SceneSpec base;
    const attn::SceneResult weights = attn::compute_scene(base, nullptr, Storage::Weights);
    SceneSpec spec = base;
    spec.temperature = 0.5f;
    StageCounts start = StageCounts::now();
    attn::SceneResult r = attn::recompute_scene(weights, base, spec, nullptr, Storage::Stages);
    EXPECT_EQ((StageCounts::now() - start).projections, 1u);
    expect_identical(r, attn::compute_scene(spec, nullptr, Storage::Stages), "from weights");
    const attn::SceneResult preview =
        attn::compute_scene(base, nullptr, Storage::Streamed, nullptr, attn::kOverviewCells, 4);
    start = StageCounts::now();
    r = attn::recompute_scene(preview, base, spec, nullptr, Storage::Streamed);
    EXPECT_EQ((StageCounts::now() - start).projections, 1u);
}

TEST(SceneRestart, APreviewContinuesFromTheExactResultAndMatchesAFreshPreview) {
    // The GUI's coarse preview of a long scene (every 4th query here) after a temperature
    // change: from the shown exact result's projections, the numbers of a preview from scratch.
    SceneSpec base;
    base.heads = 4;
    const attn::SceneResult exact = attn::compute_scene(base, nullptr, Storage::Streamed);
    SceneSpec spec = base;
    spec.temperature = 0.5f;
    const StageCounts start = StageCounts::now();
    const attn::SceneResult fast = attn::recompute_scene(
        exact, base, spec, nullptr, Storage::Streamed, nullptr, attn::kOverviewCells, 4);
    EXPECT_EQ((StageCounts::now() - start).projections, 0u);
    EXPECT_EQ(fast.preview_stride, 4);
    const attn::SceneResult fresh =
        attn::compute_scene(spec, nullptr, Storage::Streamed, nullptr, attn::kOverviewCells, 4);
    expect_identical(fast, fresh, "preview");
}

}  // namespace
