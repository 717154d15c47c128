// AttnScope core — which controls apply to a scene (computed, loaded weights, loaded scores).
// GPL-3.0-or-later.
#pragma once

#include <array>
#include <string_view>

#include "attn/scene/scene.hpp"

namespace attn {

/// The scene parameters a user controls.
enum class SceneControl {
    Score,
    Scale,
    Sigma,
    Temperature,
    Mask,
    Window,
    Padding,
    Global,
    Heads,
    DModel,
    Positional,
    Seed,
};

/// Every SceneControl, in declaration order.
inline constexpr std::array<SceneControl, 12> kSceneControls = {
    SceneControl::Score, SceneControl::Scale,  SceneControl::Sigma,      SceneControl::Temperature,
    SceneControl::Mask,  SceneControl::Window, SceneControl::Padding,    SceneControl::Global,
    SceneControl::Heads, SceneControl::DModel, SceneControl::Positional, SceneControl::Seed};

/// Whether a control applies to a scene, and if not, why.
enum class ControlState {
    Applies,
    WeightsLoaded,    ///< the loaded file holds post-softmax weights, shown as they are
    FixedByModel,     ///< loaded raw scores: the model that produced them fixed this
    NotForThisScore,  ///< the score function has no such parameter (σ without RBF, …)
    NotForThisMask,   ///< the mask has no such parameter (window width without a window, …)
};

/// The state of control c for spec: the one rule every control's enabled state follows.
ControlState control_state(const SceneSpec& spec, SceneControl c);

/// The loaded component spec shows, or null for a computed scene (or an invalid index).
const AttentionComponent* shown_component(const SceneSpec& spec);

/// Whether the shown scores are scaled by 1/√d_k: spec.scale where the score can be scaled
/// (additive and RBF scores never are), an encoder–decoder's run's scaling for its weights (the
/// app sets spec.scale to model::scales_scores of the run). What the Scale control shows,
/// applying or not.
bool scale_in_force(const SceneSpec& spec);

}  // namespace attn
