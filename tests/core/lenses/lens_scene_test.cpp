// Tests of the lenses that run whole scenes: entropy vs n and the alignment lens.
#include <gtest/gtest.h>

#include <cmath>

#include "attn/lenses/alignment.hpp"
#include "attn/lenses/entropy.hpp"
#include "attn/models/model.hpp"
#include "attn/util/error.hpp"

namespace {

using namespace attn;
using namespace attn::lenses;

TEST(LensSceneEntropy, SceneAtLengthCyclesAndTruncatesTokens) {
    SceneSpec spec;
    spec.tokens = {"a", "b", "c"};
    EXPECT_EQ(scene_at_length(spec, 2).tokens, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(scene_at_length(spec, 5).tokens, (std::vector<std::string>{"a", "b", "c", "a", "b"}));
    spec.mask.kind = MaskKind::Custom;
    EXPECT_EQ(scene_at_length(spec, 4).mask.kind, MaskKind::None);
}

TEST(LensSceneEntropy, HeadsStayBelowCeilingLogN) {
    SceneSpec spec;  // the default scene, 4 heads, no mask
    const SceneEntropy e = scene_entropy(spec, {1, 2, 8, 32});
    ASSERT_EQ(e.heads.size(), 4u);
    for (std::size_t i = 0; i < e.ns.size(); ++i) {
        EXPECT_NEAR(e.ceiling[i], std::log(double(e.ns[i])), 1e-12);
        for (const auto& h : e.heads)
            EXPECT_LE(h[i], e.ceiling[i] + 1e-6);
    }
    for (const auto& h : e.heads)
        EXPECT_NEAR(h[0], 0.0, 1e-9);

    spec.mask.kind = MaskKind::Causal;  // row i sees i + 1 keys: ceiling = mean log(i + 1)
    const SceneEntropy c = scene_entropy(spec, {4});
    EXPECT_NEAR(c.ceiling[0], (std::log(1.0) + std::log(2.0) + std::log(3.0) + std::log(4.0)) / 4,
                1e-12);
}

// A model runs its own sentence: no curve over n (it would be one run drawn flat), a reason.
TEST(LensSceneEntropy, ModelRunHasNoCurveOverN) {
    SceneSpec spec;
    spec.set_model(std::make_shared<const model::ModelFolder>());
    ASSERT_TRUE(spec.is_model());
    try {
        scene_entropy(spec, {1, 2, 4});
        FAIL() << "no error for a model run";
    } catch (const ArgumentError& e) {
        EXPECT_NE(std::string(e.what()).find("synthetic scene"), std::string::npos) << e.what();
    }
}

TEST(LensAlignment, CrossAttentionRowsAreDistributionsOverSource) {
    SceneSpec spec;
    for (ScoreKind k : {ScoreKind::Additive, ScoreKind::General, ScoreKind::Dot}) {
        const Alignment a = cross_alignment(spec, "the cat sat", "le chat assis là", k);
        EXPECT_EQ(a.source.size(), 3u);
        EXPECT_EQ(a.target.size(), 4u);
        ASSERT_EQ(a.weights.rows(), 4);
        ASSERT_EQ(a.weights.cols(), 3);
        for (Index i = 0; i < 4; ++i)
            EXPECT_NEAR(a.weights.row(i).sum(), 1.0f, 1e-5f);
        EXPECT_EQ(a.argmax.size(), 4u);
    }
    // One head equals that head of compute_scene on the same cross-attention scene.
    const Alignment h1 = cross_alignment(spec, "the cat sat", "le chat", ScoreKind::Dot, 1);
    SceneSpec s = spec;
    s.text = "le chat";
    s.cross_text = "the cat sat";
    EXPECT_TRUE(h1.weights.isApprox(compute_scene(s).heads[1].weights));
}

}  // namespace

TEST(LensAlignment, LoadedCrossAttentionIsUsedWhenThere) {
    // A Marian-like file: encoder self-attention and a rectangular "Cross" component.
    auto data = std::make_shared<AttentionData>();
    AttentionComponent enc, cross;
    enc.name = "Encoder";
    enc.q_tokens = enc.k_tokens = {"the", "cat"};
    enc.layers = enc.heads = 1;
    enc.mats = {Matrix::Constant(2, 2, 0.5f)};
    cross.name = "Cross";
    cross.q_tokens = {"die", "Katze", "."};
    cross.k_tokens = {"the", "cat"};
    cross.layers = 1;
    cross.heads = 2;
    Matrix h0(3, 2), h1(3, 2);
    h0 << 0.9f, 0.1f, 0.2f, 0.8f, 0.5f, 0.5f;
    h1 << 0.7f, 0.3f, 0.4f, 0.6f, 0.1f, 0.9f;
    cross.mats = {h0, h1};
    data->components = {enc, cross};
    SceneSpec spec;
    spec.data = data;
    EXPECT_EQ(cross_component(spec), 1);
    const Alignment a = loaded_alignment(spec, 1);
    EXPECT_EQ(a.target, cross.q_tokens);
    EXPECT_EQ(a.source, cross.k_tokens);
    EXPECT_FLOAT_EQ(a.weights(0, 0), 0.8f);  // mean of 0.9 and 0.7
    EXPECT_FLOAT_EQ(a.weights(2, 1), 0.7f);
    EXPECT_EQ(a.argmax, (std::vector<Index>{0, 1, 1}));
    EXPECT_FLOAT_EQ(loaded_alignment(spec, 1, 1).weights(1, 1), 0.6f);
    SceneSpec computed;
    EXPECT_EQ(cross_component(computed), -1);
}
