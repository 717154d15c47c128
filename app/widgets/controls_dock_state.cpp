// AttnScope — which of the dock's controls apply to the scene (attn::control_state).
// GPL-3.0-or-later.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <vector>

#include "attn/scene_controls.hpp"
#include "widgets/controls_dock.hpp"

void ControlsDock::applyControlStates(const attn::SceneSpec& spec) {
    using C = attn::SceneControl;
    const std::pair<C, std::vector<QWidget*>> controls[] = {
        {C::Score, {score_}},
        {C::Scale, {scale_}},
        {C::Sigma, {sigma_}},
        {C::Temperature, {temperature_, temperatureSlider_}},
        {C::Mask, {mask_}},
        {C::Window, {window_}},
        {C::Padding, {padding_}},
        {C::Global, {global_}},
        {C::Heads, {heads_}},
        {C::DModel, {dModel_}},
        {C::Positional, {positional_}},
        {C::Seed, {seed_, newSeed_}},
    };
    for (const auto& [control, widgets] : controls) {
        const attn::ControlState state = attn::control_state(spec, control);
        // Only loaded data needs saying: a σ without RBF or a width without a window is plain.
        QString reason;
        if (state == attn::ControlState::WeightsLoaded)
            reason =
                tr("Disabled: the loaded file holds post-softmax weights, which are shown as "
                   "they are. Load raw scores (an .npz with 'scores') to use this control.");
        else if (state == attn::ControlState::FixedByModel)
            reason = spec.model
                         ? tr("Disabled: the open GPT-2 model fixes this (Model ▸ Close Model "
                              "to leave it).")
                         : tr("Disabled: the loaded scores come from the model, which fixed "
                              "this.");
        for (QWidget* w : widgets) {
            if (!baseTips_.contains(w)) baseTips_.insert(w, w->toolTip());
            w->setEnabled(state == attn::ControlState::Applies);
            const QString base = baseTips_.value(w);
            w->setToolTip(reason.isEmpty() ? base : base + QStringLiteral("\n\n") + reason);
        }
    }
}
