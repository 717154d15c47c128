// AttnScope — which of the dock's controls apply to the scene (attn::control_state).
// GPL-3.0-or-later.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <vector>

#include "attn/scene/scene_controls.hpp"
#include "widgets/controls_dock.hpp"

void ControlsDock::applyControlStates(const attn::SceneSpec& spec) {
    using C = attn::SceneControl;
    const attn::AttentionComponent* shown = attn::shown_component(spec);
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
            reason = spec.is_model()
                         ? tr("Disabled: the open GPT-2 model fixes this (Model ▸ Close Model "
                              "to leave it).")
                     : shown && !shown->are_scores
                         ? tr("Disabled: the encoder–decoder's run fixed this (the Translation "
                              "dock's Scale 1/√d_k runs it otherwise).")
                         : tr("Disabled: the loaded scores come from the model, which fixed "
                              "this.");
        // A control with nothing in force shows a dash, never the synthetic scene's value: a
        // σ without RBF, a window without a windowed mask, anything over post-softmax weights.
        // (An unticked scale box for an additive score is the value in force: factor 1.)
        const bool dash = state == attn::ControlState::WeightsLoaded ||
                          state == attn::ControlState::NotForThisMask ||
                          (state != attn::ControlState::Applies && control == C::Sigma);
        for (QWidget* w : widgets) {
            if (!baseTips_.contains(w)) baseTips_.insert(w, w->toolTip());
            w->setEnabled(state == attn::ControlState::Applies);
            showDash(w, dash && control != C::Heads);
            const QString base = baseTips_.value(w);
            w->setToolTip(reason.isEmpty() ? base : base + QStringLiteral("\n\n") + reason);
        }
    }
    markSyntheticOnly(spec);
}

void ControlsDock::showDash(QWidget* w, bool dash) {
    static const QString kDash = QStringLiteral("—");
    const QSignalBlocker block(w);
    if (auto* slider = qobject_cast<QSlider*>(w)) {
        // A slider has no dash: greyed, its handle still read as a live, stale τ beside the
        // box's "—". It steps aside, keeping its room so the row does not jump.
        QSizePolicy policy = slider->sizePolicy();
        policy.setRetainSizeWhenHidden(true);
        slider->setSizePolicy(policy);
        slider->setVisible(!dash);
    } else if (auto* combo = qobject_cast<QComboBox*>(w)) {
        combo->setPlaceholderText(kDash);
        if (dash) combo->setCurrentIndex(-1);
    } else if (auto* spin = qobject_cast<QAbstractSpinBox*>(w)) {
        if (!baseSpecialText_.contains(w)) baseSpecialText_.insert(w, spin->specialValueText());
        spin->setSpecialValueText(dash ? kDash : baseSpecialText_.value(w));
        if (!dash) return;
        if (auto* i = qobject_cast<QSpinBox*>(w)) i->setValue(i->minimum());
        if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) d->setValue(d->minimum());
    } else if (auto* edit = qobject_cast<QLineEdit*>(w)) {
        if (!baseSpecialText_.contains(w)) baseSpecialText_.insert(w, edit->placeholderText());
        edit->setPlaceholderText(dash ? kDash : baseSpecialText_.value(w));
        if (dash) edit->clear();
    } else if (auto* box = qobject_cast<QCheckBox*>(w)) {
        box->setTristate(dash);
        if (dash) box->setCheckState(Qt::PartiallyChecked);
    }
}

void ControlsDock::markSyntheticOnly(const attn::SceneSpec& spec) {
    // d_model, positions and seed shape only the synthetic scene: loaded data has none of them
    // (its head count stays, greyed, as the file's).
    const bool loaded = spec.is_loaded();
    modelGroup_->setTitle(loaded ? tr("Loaded data") : tr("Synthetic model"));
    auto* form = static_cast<QFormLayout*>(modelGroup_->layout());
    for (QWidget* w : {static_cast<QWidget*>(dModel_), static_cast<QWidget*>(positional_)})
        form->setRowVisible(w, !loaded);
    form->setRowVisible(seedRow_, !loaded);
}
