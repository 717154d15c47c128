// Tests of attn/spec_edit.hpp: edits of a SceneSpec keep it valid (head counts divide d_model,
// padding flags follow the key count, explicit matrices of the wrong shape are dropped).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "attn/scene/spec_edit.hpp"

namespace {

TEST(SpecEdit, HeadChoicesAreTheDivisorsUpToTheLimit) {
    EXPECT_EQ(attn::head_choices(768), (std::vector<int>{1, 2, 3, 4, 6, 8, 12, 16}));
    EXPECT_EQ(attn::head_choices(30, 30), (std::vector<int>{1, 2, 3, 5, 6, 10, 15, 30}));
    EXPECT_EQ(attn::head_choices(7), (std::vector<int>{1, 7}));
    EXPECT_EQ(attn::head_choices(3), (std::vector<int>{1, 3}));  // never more heads than d_model
}

TEST(SpecEdit, DModelMovesHeadsToTheNearestDivisorBelow) {
    attn::SceneSpec s;
    s.heads = 4;
    EXPECT_EQ(attn::with_d_model(s, 96).heads, 4);
    EXPECT_EQ(attn::with_d_model(s, 30).heads, 3);
    EXPECT_EQ(attn::with_d_model(s, 7).heads, 1);
    EXPECT_EQ(attn::with_d_model(s, 96).d_model, 96);
    // kv_heads that no longer divide the heads fall back to MHA; ones that do are kept.
    s.heads = 4, s.kv_heads = 2;
    EXPECT_EQ(attn::with_d_model(s, 30).kv_heads, 0);  // 3 heads: 2 does not divide
    EXPECT_EQ(attn::with_d_model(s, 96).kv_heads, 2);
}

TEST(SpecEdit, DModelDropsMatricesOfTheOldWidth) {
    attn::SceneSpec s;
    s.d_model = 64;
    s.embeddings = std::make_shared<const attn::Matrix>(attn::Matrix::Zero(13, 64));
    const attn::SceneSpec same = attn::with_d_model(s, 64);
    EXPECT_EQ(same.embeddings, s.embeddings);  // the same width: kept, by identity
    EXPECT_EQ(attn::with_d_model(s, 96).embeddings, nullptr);
}

TEST(SpecEdit, PaddingFollowsTheKeysThroughATextEdit) {
    attn::SceneSpec s;
    s.text = "one two three";
    s.mask.kind = attn::MaskKind::Padding;
    EXPECT_EQ(attn::key_count(s), 3);
    s = attn::with_padding(s, 2);
    EXPECT_EQ(s.mask.key_valid, (std::vector<bool>{true, false, false}));
    EXPECT_EQ(attn::trailing_padding(s), 2);
    s = attn::with_text(s, "one two three four five six");
    EXPECT_EQ(s.mask.key_valid, (std::vector<bool>{true, true, true, true, false, false}));
    EXPECT_EQ(attn::trailing_padding(s), 2);
    EXPECT_EQ(attn::with_padding(s, 99).mask.key_valid, std::vector<bool>(6, false));  // clamped
    s.mask.kind = attn::MaskKind::Causal;
    EXPECT_EQ(attn::trailing_padding(s), 0);  // not a padding mask
}

TEST(SpecEdit, KeysOfCrossTextAndExplicitTokens) {
    attn::SceneSpec s;
    s.text = "a b";
    s.cross_text = "x y z w";
    EXPECT_EQ(attn::key_count(s), 4);
    s.cross_text.clear();
    s.tokens = {"p", "q", "r"};
    EXPECT_EQ(attn::key_count(s), 3);
    // A text edit drops the explicit tokens, and embeddings of the old count with them.
    s.embeddings = std::make_shared<const attn::Matrix>(attn::Matrix::Zero(3, s.d_model));
    const attn::SceneSpec t = attn::with_text(s, "just two");
    EXPECT_TRUE(t.tokens.empty());
    EXPECT_EQ(t.embeddings, nullptr);
    EXPECT_EQ(attn::with_text(s, "now three words").embeddings, s.embeddings);
}

}  // namespace
