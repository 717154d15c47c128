// Tests of multi-head, grouped-query / multi-query and cross attention.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "../test_util.hpp"
#include "attn/attention/multihead.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace {

using attn::Index;
using attn::Matrix;
using attn::MultiHeadConfig;
using attn::MultiHeadWeights;

float max_diff(const Matrix& a, const Matrix& b) {
    EXPECT_EQ(a.rows(), b.rows());
    EXPECT_EQ(a.cols(), b.cols());
    return (a - b).cwiseAbs().maxCoeff();
}

TEST(MultiHeadConfig, ValidatesAndExplains) {
    EXPECT_EQ((MultiHeadConfig{64, 4, 0}.d_k()), 16);
    EXPECT_EQ((MultiHeadConfig{64, 4, 0}.kv()), 4);
    EXPECT_EQ((MultiHeadConfig{64, 8, 2}.kv()), 2);
    EXPECT_THROW_MSG((MultiHeadConfig{64, 5, 0}.validate()), attn::ArgumentError, "(5)", "(64)");
    EXPECT_THROW_MSG((MultiHeadConfig{64, 4, 3}.validate()), attn::ArgumentError, "kv_heads (3)",
                     "heads (4)");
    EXPECT_THROW((MultiHeadConfig{64, 4, 8}.validate()), attn::ArgumentError);
    EXPECT_THROW((MultiHeadConfig{64, 4, -1}.validate()), attn::ArgumentError);
    EXPECT_THROW((MultiHeadConfig{64, 0, 0}.validate()), attn::ArgumentError);
    EXPECT_THROW((MultiHeadConfig{0, 4, 0}.validate()), attn::ArgumentError);
}

TEST(MultiHead, KvHeadOf) {
    for (Index h = 0; h < 8; ++h) {
        EXPECT_EQ(attn::kv_head_of(h, 8, 8), h);
        EXPECT_EQ(attn::kv_head_of(h, 8, 2), h / 4);
        EXPECT_EQ(attn::kv_head_of(h, 8, 1), 0);
    }
    EXPECT_THROW(attn::kv_head_of(8, 8, 2), attn::ArgumentError);
    EXPECT_THROW(attn::kv_head_of(0, 8, 3), attn::ArgumentError);
}

TEST(MultiHead, XavierIsSeededWithGqaShapes) {
    const MultiHeadConfig c{48, 6, 2};
    const MultiHeadWeights a = MultiHeadWeights::xavier(c, attn::ScoreKind::General, 5);
    const MultiHeadWeights b = MultiHeadWeights::xavier(c, attn::ScoreKind::General, 5);
    EXPECT_EQ(a.Wq, b.Wq);
    EXPECT_EQ(a.Wo, b.Wo);
    EXPECT_NE(a.Wq, MultiHeadWeights::xavier(c, attn::ScoreKind::General, 6).Wq);
    EXPECT_EQ(a.Wk.cols(), 2 * 8);
    EXPECT_EQ(a.Wv.cols(), 2 * 8);
    ASSERT_EQ(a.head_scores.size(), 6u);
    EXPECT_EQ(a.head_scores[0].W.rows(), 8);
    EXPECT_NE(a.head_scores[0].W, a.head_scores[1].W);
}

TEST(MultiHead, OneHeadEqualsSingleHeadAttention) {
    attn::Rng rng(1);
    const MultiHeadConfig c{16, 1, 0};
    const MultiHeadWeights w = MultiHeadWeights::xavier(c, attn::ScoreKind::Dot, 3);
    const Matrix X = rng.normal_matrix(7, 16);
    attn::AttentionParams p;
    p.mask.kind = attn::MaskKind::Causal;
    const attn::MultiHeadResult r = attn::multi_head(X, X, w, c, p);
    const attn::HeadResult single = attn::attend(X * w.Wq, X * w.Wk, X * w.Wv, p);
    ASSERT_EQ(r.heads.size(), 1u);
    EXPECT_LT(max_diff(r.heads[0].weights, single.weights), 1e-6f);
    EXPECT_LT(max_diff(r.heads[0].output, single.output), 1e-5f);
    EXPECT_LT(max_diff(r.output, single.output * w.Wo), 1e-5f);
    EXPECT_EQ(r.d_k, 16);
}

TEST(MultiHead, EveryHeadIsAttentionOnItsSlice) {
    attn::Rng rng(2);
    for (auto kind : {attn::ScoreKind::Dot, attn::ScoreKind::General, attn::ScoreKind::Additive,
                      attn::ScoreKind::Rbf}) {
        // 300 rows makes the projections big enough to be split across threads.
        const MultiHeadConfig c{64, 4, 0};
        const MultiHeadWeights w = MultiHeadWeights::xavier(c, kind, 4);
        const Matrix X = rng.normal_matrix(300, 64);
        attn::AttentionParams p;
        p.score.kind = kind;
        const attn::MultiHeadResult r = attn::multi_head(X, X, w, c, p);
        const Matrix Q = X * w.Wq, K = X * w.Wk, V = X * w.Wv;
        EXPECT_LT(max_diff(r.Q, Q), 1e-4f);
        for (Index h = 0; h < 4; ++h) {
            attn::AttentionParams ph = p;
            ph.score = w.head_scores[std::size_t(h)];
            const attn::HeadResult e = attn::attend(
                Q.middleCols(h * 16, 16), K.middleCols(h * 16, 16), V.middleCols(h * 16, 16), ph);
            EXPECT_LT(max_diff(r.heads[std::size_t(h)].weights, e.weights), 1e-5f);
            EXPECT_LT(max_diff(r.concat.middleCols(h * 16, 16), e.output), 1e-4f);
        }
        EXPECT_LT(max_diff(r.output, r.concat * w.Wo), 1e-4f);
    }
}

TEST(MultiHead, GroupedAndMultiQueryEqualExplicitlyRepeatedKV) {
    attn::Rng rng(3);
    const Matrix X = rng.normal_matrix(9, 32);
    for (Index kv : {1, 2}) {
        const MultiHeadConfig gqa{32, 4, kv};
        const MultiHeadWeights w = MultiHeadWeights::xavier(gqa, attn::ScoreKind::Dot, 8);
        // Repeat each kv head's projection columns for every query head of its group.
        MultiHeadWeights full = w;
        full.Wk.resize(32, 32);
        full.Wv.resize(32, 32);
        for (Index h = 0; h < 4; ++h) {
            const Index g = attn::kv_head_of(h, 4, kv);
            full.Wk.middleCols(h * 8, 8) = w.Wk.middleCols(g * 8, 8);
            full.Wv.middleCols(h * 8, 8) = w.Wv.middleCols(g * 8, 8);
        }
        const attn::AttentionParams p;
        const attn::MultiHeadResult a = attn::multi_head(X, X, w, gqa, p);
        const attn::MultiHeadResult b = attn::multi_head(X, X, full, MultiHeadConfig{32, 4, 0}, p);
        EXPECT_EQ(a.K.cols(), kv * 8);
        for (std::size_t h = 0; h < 4; ++h)
            EXPECT_LT(max_diff(a.heads[h].weights, b.heads[h].weights), 1e-6f);
        EXPECT_LT(max_diff(a.output, b.output), 1e-5f);
    }
}

TEST(MultiHead, CrossAttentionShapes) {
    attn::Rng rng(4);
    const MultiHeadConfig c{24, 3, 1};
    const MultiHeadWeights w = MultiHeadWeights::xavier(c, attn::ScoreKind::Dot, 1);
    const Matrix Xq = rng.normal_matrix(5, 24), Xkv = rng.normal_matrix(9, 24);
    attn::AttentionParams p;
    p.mask.kind = attn::MaskKind::Causal;
    const attn::MultiHeadResult r = attn::multi_head(Xq, Xkv, w, c, p);
    EXPECT_EQ(r.Q.rows(), 5);
    EXPECT_EQ(r.Q.cols(), 24);
    EXPECT_EQ(r.K.rows(), 9);
    EXPECT_EQ(r.K.cols(), 8);
    EXPECT_EQ(r.V.rows(), 9);
    for (const auto& h : r.heads) {
        EXPECT_EQ(h.raw.rows(), 5);
        EXPECT_EQ(h.raw.cols(), 9);
        EXPECT_EQ(h.output.cols(), 8);
        EXPECT_EQ(h.weights(0, 5), 0.f);  // bottom-right causal: query 0 sees keys 0..4
        EXPECT_GT(h.weights(0, 4), 0.f);
    }
    EXPECT_EQ(r.output.rows(), 5);
    EXPECT_EQ(r.output.cols(), 24);
}

TEST(MultiHead, PermutationEquivariantWithoutPositions) {
    attn::Rng rng(5);
    const MultiHeadConfig c{32, 4, 0};
    const MultiHeadWeights w = MultiHeadWeights::xavier(c, attn::ScoreKind::Dot, 2);
    const Matrix X = rng.normal_matrix(8, 32);
    const std::vector<Index> perm{3, 0, 7, 1, 6, 2, 5, 4};
    Matrix PX(8, 32);
    for (Index i = 0; i < 8; ++i)
        PX.row(i) = X.row(perm[std::size_t(i)]);
    const attn::MultiHeadResult a = attn::multi_head(X, X, w, c, {});
    const attn::MultiHeadResult b = attn::multi_head(PX, PX, w, c, {});
    for (Index i = 0; i < 8; ++i)
        EXPECT_LT((b.output.row(i) - a.output.row(perm[std::size_t(i)])).cwiseAbs().maxCoeff(),
                  1e-5f);
}

TEST(MultiHead, DeterministicAcrossRuns) {
    attn::Rng rng(6);
    const MultiHeadConfig c{64, 8, 0};
    const MultiHeadWeights w = MultiHeadWeights::xavier(c, attn::ScoreKind::Dot, 2);
    const Matrix X = rng.normal_matrix(200, 64);
    const attn::MultiHeadResult a = attn::multi_head(X, X, w, c, {});
    const attn::MultiHeadResult b = attn::multi_head(X, X, w, c, {});
    EXPECT_EQ(std::memcmp(a.output.data(), b.output.data(), sizeof(float) * a.output.size()), 0);
}

TEST(MultiHead, IntoReusedResultEqualsFreshResult) {
    attn::Rng rng(9);
    const MultiHeadConfig c{32, 4, 2};
    const MultiHeadWeights w = MultiHeadWeights::xavier(c, attn::ScoreKind::Dot, 2);
    attn::MultiHeadResult reused;
    for (Index n : {6, 6, 11, 3}) {
        const Matrix X = rng.normal_matrix(n, 32);
        attn::AttentionParams p;
        p.mask.kind = attn::MaskKind::Causal;
        attn::multi_head_into(X, X, w, c, p, reused);
        const attn::MultiHeadResult fresh = attn::multi_head(X, X, w, c, p);
        EXPECT_EQ(reused.output, fresh.output);
        ASSERT_EQ(reused.heads.size(), 4u);
        EXPECT_EQ(reused.heads[3].weights, fresh.heads[3].weights);
        EXPECT_EQ(reused.heads[3].empty_rows, fresh.heads[3].empty_rows);
        EXPECT_EQ(reused.K, fresh.K);
    }
}

TEST(MultiHead, OutputsWithoutRawAreTheStagesOutputs) {
    // keep_output without keep_stages (PyTorch's returns): no raw scores, the same weights bit
    // for bit, and outputs computed a tile at a time equal to the whole product's.
    attn::Rng rng(12);
    const MultiHeadConfig c{48, 4, 0};
    const MultiHeadWeights w = MultiHeadWeights::xavier(c, attn::ScoreKind::Dot, 3);
    const Matrix X = rng.normal_matrix(150, 48);  // more than two 64-row tiles
    for (attn::MaskKind mask : {attn::MaskKind::None, attn::MaskKind::Causal}) {
        attn::AttentionParams stages;
        stages.mask.kind = mask;
        attn::AttentionParams outputs = stages;
        outputs.keep_stages = false;
        outputs.keep_output = true;
        attn::AttentionParams weights_only = outputs;
        weights_only.keep_output = false;
        const attn::MultiHeadResult a = attn::multi_head(X, X, w, c, stages);
        const attn::MultiHeadResult b = attn::multi_head(X, X, w, c, outputs);
        const attn::MultiHeadResult o = attn::multi_head(X, X, w, c, weights_only);
        ASSERT_EQ(b.heads.size(), 4u);
        for (std::size_t k = 0; k < 4; ++k) {
            EXPECT_EQ(b.heads[k].raw.size(), 0);
            EXPECT_EQ(b.heads[k].weights, a.heads[k].weights);
            EXPECT_LT(max_diff(b.heads[k].output, a.heads[k].output), 1e-6f);
            EXPECT_EQ(o.heads[k].output.size(), 0);
        }
        EXPECT_LT(max_diff(b.output, a.output), 1e-6f);
        EXPECT_GT(a.output.cwiseAbs().maxCoeff(), 0.1f);
        EXPECT_EQ(o.output.size(), 0);
        EXPECT_EQ(o.concat.size(), 0);
    }
}

struct MultiheadRecorder : attn::Progress {
    std::vector<double> seen;
    int cancel_after = -1;
    void update(double f) override { seen.push_back(f); }
    bool cancelled() const override { return cancel_after >= 0 && int(seen.size()) > cancel_after; }
};

TEST(MultiHead, ReportsProgressAndCancels) {
    attn::Rng rng(7);
    const MultiHeadConfig c{32, 8, 0};
    const MultiHeadWeights w = MultiHeadWeights::xavier(c, attn::ScoreKind::Dot, 2);
    const Matrix X = rng.normal_matrix(20, 32);
    MultiheadRecorder r;
    attn::multi_head(X, X, w, c, {}, &r);
    ASSERT_GE(r.seen.size(), 2u);
    EXPECT_EQ(r.seen.front(), 0.0);
    EXPECT_EQ(r.seen.back(), 1.0);
    for (std::size_t i = 1; i < r.seen.size(); ++i)
        EXPECT_GE(r.seen[i], r.seen[i - 1]);
    MultiheadRecorder stop;
    stop.cancel_after = 1;
    EXPECT_THROW(attn::multi_head(X, X, w, c, {}, &stop), attn::Cancelled);
}

TEST(MultiHead, Errors) {
    attn::Rng rng(8);
    const MultiHeadConfig c{16, 2, 0};
    const MultiHeadWeights w = MultiHeadWeights::xavier(c, attn::ScoreKind::Dot, 1);
    const Matrix X = rng.normal_matrix(4, 16);
    const attn::AttentionParams p;
    EXPECT_THROW_MSG(attn::multi_head(rng.normal_matrix(4, 15), X, w, c, p), attn::ShapeError,
                     "d_model = 16", "4 x 15");
    EXPECT_THROW_MSG(attn::multi_head(Matrix(0, 16), X, w, c, p), attn::ArgumentError, "0 queries");
    MultiHeadWeights bad = w;
    bad.Wk = Matrix::Ones(16, 4);
    EXPECT_THROW_MSG(attn::multi_head(X, X, bad, c, p), attn::ShapeError, "W_K", "16 x 16",
                     "16 x 4");
    bad = w;
    bad.head_scores.pop_back();
    EXPECT_THROW_MSG(attn::multi_head(X, X, bad, c, p), attn::ShapeError, "head_scores", "2 heads");
    bad = w;
    bad.Wo(0, 0) = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW_MSG(attn::multi_head(X, X, bad, c, p), attn::NonFiniteError, "W_O");
    EXPECT_THROW(attn::multi_head(X, X, w, MultiHeadConfig{16, 3, 0}, p), attn::ArgumentError);
    // Thrown inside the head tasks (worker threads included) and rethrown to the caller.
    attn::AttentionParams wrong;
    wrong.mask.kind = attn::MaskKind::Custom;
    wrong.mask.custom = attn::BoolMatrix::Constant(2, 2, true);
    EXPECT_THROW_MSG(attn::multi_head(X, X, w, c, wrong), attn::ShapeError, "Custom mask", "4 x 4");
    Matrix Xn = X;
    Xn(3, 3) = std::numeric_limits<float>::infinity();
    EXPECT_THROW_MSG(attn::multi_head(Xn, Xn, w, c, p), attn::NonFiniteError, "X_q", "row 3");
    // Finite inputs whose projection overflows: named once, before any head runs.
    Xn = X;
    Xn.row(2).setConstant(3e38f);
    bad = w;
    bad.Wq.setConstant(1.f);
    EXPECT_THROW_MSG(attn::multi_head(Xn, Xn, bad, c, p), attn::NonFiniteError,
                     "projected queries Q", "row 2");
}

}  // namespace
