// Tests of attn::compute_scene: the default scene, determinism, positions, cross, loaded data.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "../test_util.hpp"
#include "attn/attention/softmax.hpp"
#include "attn/scene/scene.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace {

using attn::Index;
using attn::Matrix;
using attn::SceneSpec;

bool bit_equal(const Matrix& a, const Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), sizeof(float) * std::size_t(a.size())) == 0;
}

TEST(Scene, DefaultSceneComputes) {
    const attn::SceneResult r = attn::compute_scene(SceneSpec{});
    ASSERT_EQ(r.q_tokens.size(), 13u);
    EXPECT_EQ(r.q_tokens[11], "1992");
    EXPECT_EQ(r.k_tokens, r.q_tokens);
    ASSERT_EQ(r.heads.size(), 4u);
    ASSERT_EQ(r.stats.size(), 4u);
    EXPECT_EQ(r.d_k, 16);
    EXPECT_TRUE(r.has_vectors);
    EXPECT_TRUE(r.has_scores);
    EXPECT_EQ(r.kv_heads, 4);
    EXPECT_EQ(r.X.rows(), 13);
    EXPECT_EQ(r.output.cols(), 64);
    for (const auto& h : r.heads)
        for (Index i = 0; i < 13; ++i)
            EXPECT_NEAR(h.weights.row(i).sum(), 1.f, 1e-5);
    EXPECT_EQ(r.stats[0].rows.size(), 13u);
    EXPECT_GT(r.stats[0].effective_keys, 1.0);
}

TEST(Scene, SameSeedBitIdenticalOtherSeedDifferent) {
    SceneSpec s;
    const attn::SceneResult a = attn::compute_scene(s), b = attn::compute_scene(s);
    EXPECT_TRUE(bit_equal(a.output, b.output));
    for (std::size_t h = 0; h < a.heads.size(); ++h)
        EXPECT_TRUE(bit_equal(a.heads[h].weights, b.heads[h].weights));
    s.seed = 1993;
    EXPECT_FALSE(bit_equal(a.output, attn::compute_scene(s).output));
}

TEST(Scene, PermutationEquivarianceHoldsWithoutPositionsOnly) {
    SceneSpec s;
    s.tokens = {"a", "b", "c", "d", "e", "f"};
    const std::vector<Index> perm{4, 2, 0, 5, 1, 3};
    SceneSpec t = s;
    for (Index i = 0; i < 6; ++i)
        t.tokens[std::size_t(i)] = s.tokens[std::size_t(perm[std::size_t(i)])];
    // α'(i, j) = α(π(i), π(j)) when nothing marks positions.
    auto worst = [&](attn::PositionalKind kind) {
        s.positional = t.positional = kind;
        const attn::SceneResult a = attn::compute_scene(s), b = attn::compute_scene(t);
        float d = 0;
        for (std::size_t h = 0; h < a.heads.size(); ++h)
            for (Index i = 0; i < 6; ++i)
                for (Index j = 0; j < 6; ++j)
                    d = std::max(d, std::abs(b.heads[h].weights(i, j) -
                                             a.heads[h].weights(perm[std::size_t(i)],
                                                                perm[std::size_t(j)])));
        return d;
    };
    EXPECT_LT(worst(attn::PositionalKind::None), 1e-6f);
    EXPECT_GT(worst(attn::PositionalKind::Sinusoidal), 1e-2f);
    EXPECT_GT(worst(attn::PositionalKind::Learned), 1e-2f);
}

TEST(Scene, CrossAttention) {
    SceneSpec s;
    s.text = "The cat sat .";
    s.cross_text = "Le chat était assis sur le tapis .";
    s.mask.kind = attn::MaskKind::Causal;
    const attn::SceneResult r = attn::compute_scene(s);
    EXPECT_EQ(r.q_tokens.size(), 4u);
    EXPECT_EQ(r.k_tokens.size(), 8u);
    EXPECT_EQ(r.Xkv.rows(), 8);
    for (const auto& h : r.heads) {
        EXPECT_EQ(h.weights.rows(), 4);
        EXPECT_EQ(h.weights.cols(), 8);
    }
}

TEST(Scene, ExplicitEmbeddingsAndWeightsAreHonoured) {
    SceneSpec s;
    s.tokens = {"x", "y", "z"};
    s.d_model = 8;
    s.heads = 2;
    s.positional = attn::PositionalKind::None;
    attn::Rng rng(1);
    s.embeddings = std::make_shared<const Matrix>(rng.normal_matrix(3, 8));
    s.weights = std::make_shared<const attn::MultiHeadWeights>(
        attn::MultiHeadWeights::xavier({8, 2, 0}, attn::ScoreKind::Dot, 99));
    const attn::SceneResult r = attn::compute_scene(s);
    EXPECT_EQ(r.X, *s.embeddings);
    EXPECT_LT((r.Q - *s.embeddings * s.weights->Wq).cwiseAbs().maxCoeff(), 1e-5f);
    s.positional = attn::PositionalKind::Sinusoidal;  // positions are added to given embeddings
    EXPECT_NE(attn::compute_scene(s).X, *s.embeddings);
    Matrix bad = *s.embeddings;
    bad(2, 5) = std::numeric_limits<float>::quiet_NaN();
    s.embeddings = std::make_shared<const Matrix>(bad);
    EXPECT_THROW_MSG(attn::compute_scene(s), attn::NonFiniteError, "Embeddings", "row 2");
    s.embeddings = std::make_shared<const Matrix>(rng.normal_matrix(4, 8));
    EXPECT_THROW_MSG(attn::compute_scene(s), attn::ShapeError, "3 x 8", "4 x 8");
    s.embeddings.reset();
    attn::MultiHeadWeights narrow = *s.weights;
    narrow.Wq = Matrix::Ones(8, 4);
    s.weights = std::make_shared<const attn::MultiHeadWeights>(narrow);
    EXPECT_THROW_MSG(attn::compute_scene(s), attn::ShapeError, "W_Q");
}

TEST(Scene, BadSpecsAreTypedErrors) {
    SceneSpec s;
    s.text = "   ";
    EXPECT_THROW_MSG(attn::compute_scene(s), attn::ArgumentError, "no tokens");
    s.text = "ok";
    s.heads = 5;
    EXPECT_THROW_MSG(attn::compute_scene(s), attn::ArgumentError, "(5)", "(64)");
    s.heads = 4;
    s.text = "bad \xff";
    EXPECT_THROW(attn::compute_scene(s), attn::FormatError);
}

std::shared_ptr<attn::AttentionData> loaded(bool scores) {
    auto d = std::make_shared<attn::AttentionData>();
    d->source = "fixture.json";
    attn::AttentionComponent c;
    c.name = "Encoder";
    c.q_tokens = c.k_tokens = {"a", "b", "c"};
    c.layers = 2;
    c.heads = 2;
    c.are_scores = scores;
    c.d_k = 4.f;
    attn::Rng rng(3);
    for (int k = 0; k < 4; ++k) {
        Matrix m = rng.normal_matrix(3, 3);
        if (!scores) m = attn::softmax_rows(m);
        c.mats.push_back(m);
    }
    d->components.push_back(c);
    return d;
}

TEST(Scene, LoadedScoresGetTheControls) {
    SceneSpec s;
    s.data = loaded(true);
    s.layer = 1;
    s.mask.kind = attn::MaskKind::Causal;
    const attn::SceneResult r = attn::compute_scene(s);
    EXPECT_TRUE(r.has_scores);
    EXPECT_FALSE(r.has_vectors);
    EXPECT_EQ(r.layers, 2);
    EXPECT_EQ(r.layer, 1);
    ASSERT_EQ(r.heads.size(), 2u);
    attn::AttentionParams p;
    p.mask.kind = attn::MaskKind::Causal;
    const attn::HeadResult e = attn::attend_scores(s.data->components[0].at(1, 1), 4.f, p);
    EXPECT_EQ(r.heads[1].weights, e.weights);
    EXPECT_FLOAT_EQ(r.heads[1].scale_factor, 0.5f);
    EXPECT_EQ(r.heads[1].weights(0, 1), 0.f);
    s.data_dk = 16.f;
    EXPECT_FLOAT_EQ(attn::compute_scene(s).heads[0].scale_factor, 0.25f);
    EXPECT_EQ(r.stats.size(), 2u);
}

TEST(Scene, LoadedWeightsPassThrough) {
    SceneSpec s;
    s.data = loaded(false);
    s.temperature = 0.f;  // controls do not apply to post-softmax weights
    const attn::SceneResult r = attn::compute_scene(s);
    EXPECT_FALSE(r.has_scores);
    ASSERT_EQ(r.heads.size(), 2u);
    EXPECT_EQ(r.heads[0].weights, s.data->components[0].at(0, 0));
    EXPECT_EQ(r.heads[0].raw.size(), 0);
    EXPECT_EQ(r.heads[0].output.size(), 0);
    EXPECT_EQ(r.heads[0].empty_rows, (std::vector<std::uint8_t>{0, 0, 0}));
    EXPECT_GT(r.stats[0].entropy, 0.0);
    EXPECT_EQ(r.q_tokens.size(), 3u);
}

TEST(Scene, LoadedDataErrors) {
    SceneSpec s;
    s.data = loaded(true);
    s.component = 1;
    EXPECT_THROW_MSG(attn::compute_scene(s), attn::ArgumentError, "fixture.json", "component 1");
    s.component = 0;
    s.layer = 2;
    EXPECT_THROW_MSG(attn::compute_scene(s), attn::ArgumentError, "2 layers", "layer 2");
    s.layer = 0;
    auto d = loaded(true);
    d->components[0].mats[1] = Matrix::Ones(2, 3);
    s.data = d;
    EXPECT_THROW_MSG(attn::compute_scene(s), attn::ShapeError, "Head 1", "2 x 3");
    auto w = loaded(false);
    w->components[0].mats[0](1, 1) = std::numeric_limits<float>::quiet_NaN();
    s.data = w;
    EXPECT_THROW(attn::compute_scene(s), attn::NonFiniteError);
    EXPECT_THROW(s.data->components[0].at(0, 2), attn::ArgumentError);
}

}  // namespace
