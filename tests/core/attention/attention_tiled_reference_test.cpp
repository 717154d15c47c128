// The full path past one tile against the float64 reference (float_reference.hpp): at n ≈ 1200
// a head's queries split into tiles (above ~362 tokens, attention.cpp's kTileCells), so rows on
// both sides of every kind of tile boundary — the kept pass's and the weights-only pass's (109
// or 100 rows), the streamed pass's (8 and 64) — for every score kind, with and without a mask,
// each within a float32 bound of the exact value; and each storage's rows within the sum of two
// such bounds of another's.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "../float_reference.hpp"
#include "attn/attention/multihead.hpp"
#include "attn/scene/scene.hpp"
#include "attn/util/random.hpp"

namespace {

using attn::Index;

constexpr Index kModel = 32, kHeads = 2;

/// A scene of nq queries over nk keys (cross attention when they differ) with explicit
/// embeddings: for the RBF score's self-attention, Q = K = X around a common offset (‖q‖² ≫ ‖q −
/// k‖², where ‖q‖² + ‖k‖² − 2 q·k loses the distance), otherwise Xavier projections.
attn::SceneSpec scene(attn::ScoreKind kind, attn::MaskKind mask, Index nq, Index nk) {
    attn::SceneSpec spec;
    spec.d_model = kModel;
    spec.heads = kHeads;
    spec.score = kind;
    spec.sigma = 4.f;
    spec.temperature = 0.8f;
    spec.mask.kind = mask;
    spec.positional = attn::PositionalKind::None;
    const bool rbf = kind == attn::ScoreKind::Rbf;
    attn::Rng rng(1200 + Index(kind));
    for (Index i = 0; i < nq; ++i) {
        spec.tokens.push_back("q");
        spec.tokens.back() += std::to_string(i);
    }
    attn::Matrix E = rng.normal_matrix(nq, kModel);
    // Cross attention: the keys are the text's seeded embeddings (explicit ones are the
    // queries').
    for (Index j = 0; nk != nq && j < nk; ++j) {
        spec.cross_text += 'k';
        spec.cross_text += std::to_string(j);
        spec.cross_text += ' ';
    }
    if (rbf && nk == nq) E.array() += 30.f;
    spec.embeddings = std::make_shared<const attn::Matrix>(E);
    attn::MultiHeadConfig config{kModel, kHeads, 0};
    attn::MultiHeadWeights w = attn::MultiHeadWeights::xavier(config, kind, 7, spec.sigma);
    if (rbf) w.Wq = w.Wk = attn::Matrix::Identity(kModel, kModel);
    spec.weights = std::make_shared<const attn::MultiHeadWeights>(w);
    return spec;
}

/// Rows on both sides of the tile boundaries of every pass at these sizes.
std::vector<Index> boundary_rows(Index nq) {
    std::vector<Index> rows;
    for (const Index tile : {Index(8), Index(64), Index(100), Index(109)})
        for (const Index b : {tile, 2 * tile, (nq / tile) * tile})
            for (const Index i : {b - 1, b, b + 1})
                if (i >= 0 && i < nq) rows.push_back(i);
    rows.push_back(0);
    rows.push_back(nq - 1);
    return rows;
}

TEST(TiledAttention, RowsAroundTileBoundariesMatchTheFloat64Reference) {
    struct Case {
        attn::MaskKind mask;
        Index nq, nk;
    };
    int checked = 0;
    for (const attn::ScoreKind kind : {attn::ScoreKind::Dot, attn::ScoreKind::General,
                                       attn::ScoreKind::Additive, attn::ScoreKind::Rbf})
        for (const Case c :
             {Case{attn::MaskKind::Causal, 1200, 1200}, Case{attn::MaskKind::None, 1200, 1301}}) {
            // Additive's n² · d_a tanh are most of the test's time: its cross case is left to
            // the other kinds (the tiling does not depend on the score).
            if (kind == attn::ScoreKind::Additive && c.nk != c.nq) continue;
            const attn::SceneSpec spec = scene(kind, c.mask, c.nq, c.nk);
            const attn::SceneResult stages =
                attn::compute_scene(spec, nullptr, attn::Storage::Stages);
            const attn::SceneResult weights =
                attn::compute_scene(spec, nullptr, attn::Storage::Weights);
            const attn::SceneResult streamed =
                attn::compute_scene(spec, nullptr, attn::Storage::Streamed);
            ASSERT_EQ(stages.query_count(), c.nq);
            ASSERT_EQ(stages.key_count(), c.nk);
            ASSERT_EQ(streamed.storage, attn::Storage::Streamed);
            const std::string at = std::string(attn::to_string(kind)) + " " +
                                   std::string(attn::to_string(c.mask)) + " " +
                                   std::to_string(c.nk) + " keys";
            for (Index h = 0; h < kHeads; ++h)
                for (const Index i : boundary_rows(c.nq)) {
                    const fref::Row want = fref::scene_row(stages, spec, h, i);
                    const std::string row =
                        at + " head " + std::to_string(h) + " row " + std::to_string(i);
                    const auto u = std::size_t(h);
                    fref::expect_weights(stages.heads[u].weights.row(i).data(), want,
                                         row + " stages");
                    fref::expect_weights(weights.heads[u].weights.row(i).data(), want,
                                         row + " weights");
                    const Eigen::RowVectorXf s = streamed.weights_row(h, i);
                    fref::expect_weights(s.data(), want, row + " streamed");
                    fref::expect_stats(stages.stats[u].rows[std::size_t(i)], want, row + " stages");
                    fref::expect_stats(weights.stats[u].rows[std::size_t(i)], want,
                                       row + " weights");
                    fref::expect_stats(streamed.stats[u].rows[std::size_t(i)], want,
                                       row + " streamed");
                    // Cross-path: each within its bound of the reference, so within twice of
                    // each other.
                    for (Index j = 0; j < c.nk; ++j)
                        ASSERT_LE(std::abs(double(s(j)) - stages.heads[u].weights(i, j)),
                                  2 * want.w_bound[std::size_t(j)])
                            << row << " key " << j;
                    // The raw scores the kept pass stores, against the exact score.
                    const fref::Query q = fref::prepare(stages.Q.row(i).data() + h * stages.d_k,
                                                        stages.d_k, stages.head_scores[u]);
                    for (const Index j : {Index(0), i % c.nk, c.nk - 1}) {
                        const fref::Score e =
                            fref::score(q, stages.K.row(j).data() + h * stages.d_k, stages.d_k,
                                        stages.head_scores[u]);
                        EXPECT_TRUE(fref::within(stages.heads[u].raw(i, j), e.value,
                                                 e.bound + 2 * fref::kEps * std::abs(e.value)))
                            << row << " raw key " << j;
                    }
                    ++checked;
                }
        }
    EXPECT_GT(checked, 250);
}

}  // namespace
