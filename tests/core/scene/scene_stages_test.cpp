// compute_scene without the stored score stages (the GUI's path for long sequences) against the
// full computation: same weights, outputs and statistics; rows of every stage recomputed on
// demand equal the stored ones; masks and row-mask slices agree with build_mask.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>

#include "attn/attention/mask.hpp"
#include "attn/scene/scene.hpp"
#include "attn/util/error.hpp"

namespace {

using attn::Index;

std::string stage_words(int n) {
    std::string text;
    for (int i = 0; i < n; ++i) {
        // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "w" + to_string(…) + ' '.
        text += 'w';
        text += std::to_string(i * 7 % 23);
        text += ' ';
    }
    return text;
}

void expectRowsNear(const Eigen::RowVectorXf& a, const Eigen::RowVectorXf& b, float tol,
                    const std::string& what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (Index j = 0; j < a.size(); ++j) {
        if (std::isinf(a(j)) || std::isinf(b(j))) {
            EXPECT_EQ(a(j), b(j)) << what << " at " << j;
            continue;
        }
        EXPECT_NEAR(a(j), b(j), tol * (1.f + std::abs(b(j)))) << what << " at " << j;
    }
}

using StageCase = std::tuple<attn::ScoreKind, attn::MaskKind, float /*temperature*/, int /*n*/>;

class CompactScene : public testing::TestWithParam<StageCase> {};

TEST_P(CompactScene, MatchesTheFullComputation) {
    const auto [score, mask, tau, n] = GetParam();
    attn::SceneSpec spec;
    spec.text = stage_words(n);
    spec.d_model = 32;
    spec.heads = 4;
    spec.kv_heads = 2;  // grouped-query: the recomputed rows must pick the right K slice
    spec.score = score;
    spec.temperature = tau;
    spec.mask.kind = mask;
    spec.mask.window = 3;
    spec.mask.global = {0, 5};
    spec.mask.key_valid.assign(static_cast<std::size_t>(n), true);
    spec.mask.key_valid[2] = spec.mask.key_valid[7] = false;

    const attn::SceneResult full = attn::compute_scene(spec);
    const attn::SceneResult compact = attn::compute_scene(spec, nullptr, false);
    ASSERT_EQ(full.storage, attn::Storage::Stages);
    ASSERT_NE(compact.storage, attn::Storage::Stages);
    ASSERT_EQ(compact.heads.size(), full.heads.size());
    for (std::size_t h = 0; h < full.heads.size(); ++h) {
        const attn::HeadResult& f = full.heads[h];
        const attn::HeadResult& c = compact.heads[h];
        EXPECT_EQ(c.raw.size(), 0);  // the point: no n² score stages kept
        EXPECT_EQ(c.masked_matrix().size(), 0);
        EXPECT_TRUE(c.weights.isApprox(f.weights, 1e-5f)) << "head " << h;
        EXPECT_EQ(c.output.size(), 0);
        EXPECT_EQ(c.empty_rows, f.empty_rows);
        EXPECT_EQ(c.multiplier, f.multiplier);
        // Rows sum to 1 unless every key is masked.
        for (Index i = 0; i < c.weights.rows(); ++i)
            EXPECT_NEAR(c.weights.row(i).sum(), c.empty_rows[std::size_t(i)] ? 0.f : 1.f, 1e-5f);

        const attn::HeadStats& sf = full.stats[h];
        const attn::HeadStats& sc = compact.stats[h];
        EXPECT_NEAR(sc.entropy, sf.entropy, 1e-5);
        for (std::size_t i = 0; i < sf.rows.size(); ++i)  // L − Σ α z against −Σ α log α
            EXPECT_NEAR(sc.rows[i].entropy, sf.rows[i].entropy, 2e-5) << "row " << i;
        EXPECT_NEAR(sc.max_weight, sf.max_weight, 1e-6);
        EXPECT_NEAR(sc.mean_distance, sf.mean_distance, 1e-4);
        EXPECT_NEAR(sc.score_var, sf.score_var, 1e-4 * (1 + sf.score_var));

        const Index hi = Index(h);
        for (Index i : {Index(0), Index(n / 2), Index(n - 1)}) {
            std::string at = "head ";
            (at += std::to_string(h)) += " query ";
            at += std::to_string(i);
            expectRowsNear(compact.raw_row(hi, i), f.raw.row(i), 1e-5f, "raw " + at);
            expectRowsNear(compact.scaled_row(hi, i), f.scaled_row(i), 1e-5f, "scaled " + at);
            expectRowsNear(compact.masked_row(hi, i), f.masked_row(i), 1e-5f, "masked " + at);
            expectRowsNear(compact.output_row(hi, i), f.output.row(i), 1e-5f, "output " + at);
            // The full result's accessors return its stored rows.
            EXPECT_EQ(full.masked_row(hi, i), f.masked_row(i));
            for (Index j = 0; j < Index(n); ++j)
                EXPECT_EQ(compact.is_masked(hi, i, j), full.is_masked(hi, i, j))
                    << at << " key " << j;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    ScoresMasksTemperatures, CompactScene,
    testing::Values(StageCase{attn::ScoreKind::Dot, attn::MaskKind::None, 1.f, 45},
                    StageCase{attn::ScoreKind::Dot, attn::MaskKind::Causal, 0.5f, 70},
                    StageCase{attn::ScoreKind::Dot, attn::MaskKind::AntiCausal, 0.f, 33},
                    StageCase{attn::ScoreKind::General, attn::MaskKind::SlidingWindow, 2.f, 40},
                    StageCase{attn::ScoreKind::Additive, attn::MaskKind::Padding, 1.f, 35},
                    StageCase{attn::ScoreKind::Rbf, attn::MaskKind::GlobalWindow, 1.f, 66}));

TEST(CompactScene, HandComputedMaskedRow) {
    // One head, d_k 2, explicit embeddings and identity projections: raw = X Xᵀ.
    attn::SceneSpec spec;
    spec.tokens = {"a", "b", "c"};
    spec.d_model = 2;
    spec.heads = 1;
    spec.positional = attn::PositionalKind::None;
    attn::Matrix E(3, 2);
    E << 1, 0, 0, 2, 1, 1;
    spec.embeddings = std::make_shared<const attn::Matrix>(E);
    attn::MultiHeadWeights w;
    w.Wq = w.Wk = w.Wv = w.Wo = attn::Matrix::Identity(2, 2);
    spec.weights = std::make_shared<const attn::MultiHeadWeights>(w);
    spec.mask.kind = attn::MaskKind::Causal;
    const attn::SceneResult r = attn::compute_scene(spec, nullptr, false);
    const float inf = std::numeric_limits<float>::infinity();
    const float s = 1.f / std::sqrt(2.f);
    Eigen::RowVectorXf raw(3), masked(3);
    raw << 1, 2, 2;  // row "c" = (1, 1): with a = (1,0), b = (0,2), c = (1,1)
    masked << s, 2 * s, 2 * s;
    EXPECT_EQ(r.raw_row(0, 2), raw);
    expectRowsNear(r.masked_row(0, 2), masked, 1e-6f, "row c");
    Eigen::RowVectorXf first(3);
    first << s, -inf, -inf;
    expectRowsNear(r.masked_row(0, 0), first, 1e-6f, "row a");
    EXPECT_TRUE(r.is_masked(0, 0, 1));
    EXPECT_FALSE(r.is_masked(0, 1, 1));
    // Weights of row "b": softmax(0, 4/√2) over the two visible keys.
    const double e = std::exp(4.0 / std::sqrt(2.0));
    EXPECT_NEAR(r.heads[0].weights(1, 0), 1 / (1 + e), 1e-6);
    EXPECT_NEAR(r.heads[0].weights(1, 1), e / (1 + e), 1e-6);
    // Output of row "b": α₀ a + α₁ b with V = X (identity projections).
    const Eigen::RowVectorXf ob = r.output_row(0, 1);
    EXPECT_NEAR(ob(0), 1 / (1 + e), 1e-6);
    EXPECT_NEAR(ob(1), 2 * e / (1 + e), 1e-6);
    EXPECT_THROW(r.raw_row(1, 0), attn::ArgumentError);
    EXPECT_THROW(r.raw_row(0, 3), attn::ArgumentError);
}

TEST(MaskRows, SlicesEqualTheFullMask) {
    attn::MaskSpec spec;
    for (attn::MaskKind kind : {attn::MaskKind::Causal, attn::MaskKind::AntiCausal,
                                attn::MaskKind::SlidingWindow, attn::MaskKind::GlobalWindow}) {
        spec.kind = kind;
        spec.window = 2;
        spec.global = {1, 9};
        for (auto [nq, nk] : {std::pair<Index, Index>{12, 12}, {5, 12}}) {
            const attn::BoolMatrix full = attn::build_mask(spec, nq, nk);
            for (Index first = 0; first < nq; first += 3) {
                const Index count = std::min<Index>(4, nq - first);
                EXPECT_EQ(attn::build_mask_rows(spec, nq, nk, first, count),
                          attn::BoolMatrix(full.middleRows(first, count)))
                    << attn::to_string(kind) << " rows " << first;
            }
        }
    }
    EXPECT_THROW(attn::build_mask_rows(spec, 4, 4, 3, 2), attn::ArgumentError);
}

}  // namespace
