// Which controls apply to a scene: computed, loaded post-softmax weights, loaded raw scores.
#include <gtest/gtest.h>

#include <memory>

#include "attn/scene/scene_controls.hpp"

namespace attn {
namespace {

SceneSpec loaded_spec(bool scores) {
    auto data = std::make_shared<AttentionData>();
    AttentionComponent c;
    c.q_tokens = c.k_tokens = {"a", "b"};
    c.layers = 1;
    c.heads = 1;
    c.mats = {Matrix::Identity(2, 2)};
    c.are_scores = scores;
    data->components = {c};
    SceneSpec s;
    s.data = data;
    return s;
}

TEST(SceneControls, ComputedSceneFollowsScoreAndMask) {
    SceneSpec s;  // dot product, scaled, no mask
    EXPECT_EQ(control_state(s, SceneControl::Score), ControlState::Applies);
    EXPECT_EQ(control_state(s, SceneControl::Scale), ControlState::Applies);
    EXPECT_EQ(control_state(s, SceneControl::Sigma), ControlState::NotForThisScore);
    EXPECT_EQ(control_state(s, SceneControl::Window), ControlState::NotForThisMask);
    EXPECT_EQ(control_state(s, SceneControl::Padding), ControlState::NotForThisMask);
    EXPECT_EQ(control_state(s, SceneControl::Global), ControlState::NotForThisMask);
    for (SceneControl c : {SceneControl::Temperature, SceneControl::Mask, SceneControl::Heads,
                           SceneControl::DModel, SceneControl::Positional, SceneControl::Seed})
        EXPECT_EQ(control_state(s, c), ControlState::Applies);
    s.score = ScoreKind::Rbf;  // a distance: no 1/√d_k, but a bandwidth
    EXPECT_EQ(control_state(s, SceneControl::Sigma), ControlState::Applies);
    EXPECT_EQ(control_state(s, SceneControl::Scale), ControlState::NotForThisScore);
    s.mask.kind = MaskKind::GlobalWindow;
    EXPECT_EQ(control_state(s, SceneControl::Window), ControlState::Applies);
    EXPECT_EQ(control_state(s, SceneControl::Global), ControlState::Applies);
    EXPECT_EQ(control_state(s, SceneControl::Padding), ControlState::NotForThisMask);
    s.mask.kind = MaskKind::Padding;
    EXPECT_EQ(control_state(s, SceneControl::Padding), ControlState::Applies);
    EXPECT_EQ(control_state(s, SceneControl::Window), ControlState::NotForThisMask);
}

TEST(SceneControls, LoadedWeightsDisableEveryControl) {
    const SceneSpec s = loaded_spec(false);
    for (SceneControl c : kSceneControls)
        EXPECT_EQ(control_state(s, c), ControlState::WeightsLoaded) << int(c);
}

TEST(SceneControls, LoadedScoresKeepScalingMaskAndTemperature) {
    SceneSpec s = loaded_spec(true);
    for (SceneControl c : {SceneControl::Score, SceneControl::Sigma, SceneControl::Heads,
                           SceneControl::DModel, SceneControl::Positional, SceneControl::Seed})
        EXPECT_EQ(control_state(s, c), ControlState::FixedByModel) << int(c);
    for (SceneControl c : {SceneControl::Scale, SceneControl::Temperature, SceneControl::Mask})
        EXPECT_EQ(control_state(s, c), ControlState::Applies) << int(c);
    EXPECT_EQ(control_state(s, SceneControl::Window), ControlState::NotForThisMask);
    s.mask.kind = MaskKind::SlidingWindow;
    EXPECT_EQ(control_state(s, SceneControl::Window), ControlState::Applies);
    EXPECT_EQ(shown_component(s), &s.data->components[0]);
    s.component = 3;  // out of range: nothing is shown
    EXPECT_EQ(shown_component(s), nullptr);
}

}  // namespace
}  // namespace attn
