// AttnScope core — which controls apply to a scene. GPL-3.0-or-later.
#include "attn/scene/scene_controls.hpp"

#include "attn/attention/score.hpp"
#include "attn/scene/seq2seq_scene.hpp"

namespace attn {

const AttentionComponent* shown_component(const SceneSpec& spec) {
    if (!spec.is_loaded() || spec.component < 0 ||
        std::size_t(spec.component) >= spec.data->components.size())
        return nullptr;
    return &spec.data->components[std::size_t(spec.component)];
}

namespace {
/// Whether SPEC shows an encoder–decoder's run (its components, as seq2seq_attention names
/// them): weights whose scaling the run fixed.
bool shows_seq2seq_run(const SceneSpec& spec) {
    return spec.is_loaded() && shown_component(*spec.data, spec.component).has_value();
}
}  // namespace

bool scale_in_force(const SceneSpec& spec) {
    return spec.scale && (shows_seq2seq_run(spec) || score_is_scalable(spec.score));
}

ControlState control_state(const SceneSpec& spec, SceneControl c) {
    // A model run is loaded attention whose scores the controls change inside the run.
    const bool loaded = (spec.is_loaded() && !spec.data->components.empty()) || spec.is_model();
    const AttentionComponent* comp = shown_component(spec);
    const bool scores = (comp && comp->are_scores) || spec.is_model();
    const MaskKind mask = spec.mask.kind;
    const bool windowed = mask == MaskKind::SlidingWindow || mask == MaskKind::GlobalWindow;
    // Post-softmax weights are shown as they are: nothing can be re-applied to them. An
    // encoder–decoder's run still says whether it scaled its scores: its model fixed that.
    if (loaded && !scores)
        return c == SceneControl::Scale && shows_seq2seq_run(spec) ? ControlState::FixedByModel
                                                                   : ControlState::WeightsLoaded;
    switch (c) {
        case SceneControl::Score:
        case SceneControl::Heads:
        case SceneControl::DModel:
        case SceneControl::Positional:
        case SceneControl::Seed:
            return loaded ? ControlState::FixedByModel : ControlState::Applies;
        case SceneControl::Sigma:
            if (loaded) return ControlState::FixedByModel;
            return spec.score == ScoreKind::Rbf ? ControlState::Applies
                                                : ControlState::NotForThisScore;
        case SceneControl::Scale:
            return score_is_scalable(spec.score) ? ControlState::Applies
                                                 : ControlState::NotForThisScore;
        case SceneControl::Temperature:
        case SceneControl::Mask:
            return ControlState::Applies;
        case SceneControl::Window:
            return windowed ? ControlState::Applies : ControlState::NotForThisMask;
        case SceneControl::Padding:
            return mask == MaskKind::Padding ? ControlState::Applies : ControlState::NotForThisMask;
        case SceneControl::Global:
            return mask == MaskKind::GlobalWindow ? ControlState::Applies
                                                  : ControlState::NotForThisMask;
    }
    return ControlState::Applies;
}

}  // namespace attn
