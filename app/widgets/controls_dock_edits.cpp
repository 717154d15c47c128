// AttnScope — the dock's edits of the Scene and its synchronisation from the Scene.
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
#include <QUndoStack>
#include <cmath>

#include "attn/models/model.hpp"
#include "attn/scene/scene_controls.hpp"
#include "attn/scene/scope_text.hpp"
#include "attn/scene/spec_edit.hpp"
#include "model/scene.hpp"
#include "model/undo_command.hpp"
#include "model/view_state.hpp"
#include "widgets/controls_dock.hpp"

namespace {

// The temperature slider spans 10^−1.5 … 10^1.5 logarithmically.
constexpr double kLogTauMin = -1.5, kLogTauMax = 1.5;

int sliderFromTau(double tau) {
    if (tau <= 0) return 0;
    const double t = (std::log10(tau) - kLogTauMin) / (kLogTauMax - kLogTauMin);
    return int(std::lround(std::clamp(t, 0.0, 1.0) * 1000));
}

double tauFromSlider(int pos) {
    const double e = kLogTauMin + (kLogTauMax - kLogTauMin) * pos / 1000.0;
    return std::round(std::pow(10.0, e) * 1000) / 1000;  // the spin box's 3 decimals
}

int scoreIndex(const attn::SceneSpec& s) {
    switch (s.score) {
        case attn::ScoreKind::Dot:
            return s.scale ? 1 : 0;
        case attn::ScoreKind::General:
            return 2;
        case attn::ScoreKind::Additive:
            return 3;
        case attn::ScoreKind::Rbf:
            return 4;
    }
    return 1;
}

QString globalText(const std::vector<attn::Index>& global) {
    QStringList parts;
    for (attn::Index g : global)
        parts << QString::number(g);
    return parts.join(QStringLiteral(", "));
}

}  // namespace

void ControlsDock::syncFromScene() {
    const attn::SceneSpec& s = scene_->spec();
    const QSignalBlocker b1(score_), b2(scale_), b3(sigma_), b4(temperature_),
        b5(temperatureSlider_), b6(mask_), b7(window_), b8(padding_), b9(global_), b10(heads_),
        b11(dModel_), b12(positional_), b13(seed_);
    score_->setCurrentIndex(scoreIndex(s));
    // The scaling in force: none for additive and RBF scores (factor 1), an encoder–decoder's
    // run's own for its weights. Whether the box is enabled is applyControlStates' business.
    scale_->setChecked(attn::scale_in_force(s));
    // Loaded attention has its own d_k and head count (the Loaded data dock sets d_k); showing
    // the computed scene's values beside it would contradict the math panel.
    const attn::AttentionComponent* loaded = attn::shown_component(s);
    const attn::model::ModelInfo* model = s.is_model() ? &s.model->model->info() : nullptr;
    const attn::Index heads = model ? model->heads : loaded ? loaded->heads : s.heads;
    const double dk = model    ? double(model->head_dim)
                      : loaded ? double(s.data_dk.value_or(loaded->d_k))
                               : double(s.heads > 0 ? s.d_model / s.heads : 0);
    scale_->setText(tr("Scale by 1/√d_k  (d_k = %1)").arg(dk));
    sigma_->setValue(s.sigma);
    temperature_->setValue(s.temperature);
    temperatureSlider_->setValue(sliderFromTau(s.temperature));

    int maskIndex = mask_->findData(int(s.mask.kind));
    if (maskIndex < 0) {
        mask_->addItem(tr("Custom (from file)"), int(s.mask.kind));
        maskIndex = mask_->count() - 1;
    }
    mask_->setCurrentIndex(maskIndex);
    window_->setValue(int(s.mask.window));
    global_->setText(globalText(s.mask.global));
    padding_->setValue(attn::trailing_padding(s));

    dModel_->setValue(int(s.d_model));
    heads_->clear();
    for (int h : attn::head_choices(s.d_model))
        heads_->addItem(QString::number(h), h);
    if (heads_->findData(int(heads)) < 0) heads_->addItem(QString::number(heads), int(heads));
    heads_->setCurrentIndex(heads_->findData(int(heads)));
    positional_->setCurrentIndex(positional_->findData(int(s.positional)));
    seed_->setValue(int(s.seed % std::uint64_t(std::numeric_limits<int>::max())));
    syncScope(s);
    applyControlStates(s);
    fitWidth();  // the scale label's d_k may have changed width
}

void ControlsDock::syncScope(const attn::SceneSpec& s) {
    const QSignalBlocker block(scope_);
    const int layers = s.is_model() ? s.model->model->info().layers : 0;
    if (scope_->count() != layers + 1) {
        scope_->clear();
        scope_->addItem(tr("All layers"));
        for (int l = 0; l < layers; ++l)
            scope_->addItem(tr("Layer %1 only").arg(l + 1));  // from 1, like every label
    }
    scope_->setCurrentIndex(s.model_layers.size() == 1 ? s.model_layers.front() + 1 : 0);
    scoreForm_->setRowVisible(scope_, s.is_model());
    {
        const QSignalBlocker blockRotary(rotaryOff_);
        rotaryOff_->setChecked(!s.model_rotary);
    }
    scoreForm_->setRowVisible(rotaryOff_, s.is_model() && s.model->model->info().rotary);
    {
        const QSignalBlocker blockSoftcap(softcapOff_);
        softcapOff_->setChecked(!s.model_softcap);
    }
    scoreForm_->setRowVisible(softcapOff_, s.is_model() && s.model->model->info().softcap);
    // The synthetic model's d_model, heads, positions and seed are not the open model's (the
    // Model dock gives its shape): hidden rather than shown greyed with wrong numbers.
    modelGroup_->setVisible(!s.is_model());
}

void ControlsDock::onScope(int index) {
    attn::SceneSpec s = scene_->spec();
    if (!s.is_model() || index < 0) return;
    const std::vector<int> layers = index == 0 ? std::vector<int>{} : std::vector<int>{index - 1};
    if (s.model_layers == layers) return;
    s.model_layers = layers;
    // Worded by the rule that words the banner of a layer outside the scope.
    scene_->setSpec(
        s,
        tr("Apply the controls %1").arg(QString::fromStdString(attn::model::scope_phrase(layers))));
}

void ControlsDock::onRotaryOff(bool off) {
    attn::SceneSpec s = scene_->spec();
    if (!s.is_model() || s.model_rotary == !off) return;
    s.model_rotary = !off;
    scene_->setSpec(s, off ? tr("Rotary positions off") : tr("Rotary positions on"));
}

void ControlsDock::onSoftcapOff(bool off) {
    attn::SceneSpec s = scene_->spec();
    if (!s.is_model() || s.model_softcap == !off) return;
    s.model_softcap = !off;
    scene_->setSpec(s, off ? tr("Soft-capping off") : tr("Soft-capping on"));
}

void ControlsDock::onScore(int index) {
    attn::SceneSpec s = scene_->spec();
    switch (index) {
        case 0:
            s.score = attn::ScoreKind::Dot, s.scale = false;
            break;
        case 1:
            s.score = attn::ScoreKind::Dot, s.scale = true;
            break;
        case 2:
            s.score = attn::ScoreKind::General;
            break;
        case 3:
            s.score = attn::ScoreKind::Additive;
            break;
        default:
            s.score = attn::ScoreKind::Rbf;
            break;
    }
    scene_->setSpec(s, tr("Change score to %1").arg(score_->itemText(index)));
}

void ControlsDock::onScale(bool on) {
    attn::SceneSpec s = scene_->spec();
    s.scale = on;
    scene_->setSpec(s, on ? tr("Scale scores by 1/√d_k") : tr("Do not scale scores"));
}

void ControlsDock::onSigma(double sigma) {
    attn::SceneSpec s = scene_->spec();
    s.sigma = float(sigma);
    scene_->setSpec(s, tr("Change RBF σ"), kSigmaControl);
}

void ControlsDock::onTemperature(double tau) {
    attn::SceneSpec s = scene_->spec();
    s.temperature = float(tau);
    scene_->setSpec(s, tr("Change temperature"), kTemperatureControl);
}

void ControlsDock::onTemperatureSlider(int position) {
    temperature_->setValue(tauFromSlider(position));
}

void ControlsDock::onMask(int index) {
    attn::SceneSpec s = scene_->spec();
    s.mask.kind = attn::MaskKind(mask_->itemData(index).toInt());
    if (s.mask.kind == attn::MaskKind::Padding && attn::trailing_padding(s) == 0)
        s = attn::with_padding(std::move(s), std::max(1, padding_->value()));
    if (s.mask.kind == attn::MaskKind::GlobalWindow && s.mask.global.empty()) s.mask.global = {0};
    scene_->setSpec(s, tr("Mask: %1").arg(mask_->itemText(index)));
}

void ControlsDock::onWindow(int window) {
    attn::SceneSpec s = scene_->spec();
    s.mask.window = window;
    scene_->setSpec(s, tr("Change window"), kWindowControl);
}

void ControlsDock::onPadding(int count) {
    scene_->setSpec(attn::with_padding(scene_->spec(), count), tr("Change padding"),
                    kPaddingControl);
}

void ControlsDock::onGlobal() {
    attn::SceneSpec s = scene_->spec();
    s.mask.global.clear();
    const int n = attn::key_count(s);
    for (const QString& part : global_->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int i = part.trimmed().toInt(&ok);
        if (ok && i >= 0 && i < n) s.mask.global.push_back(i);
    }
    scene_->setSpec(s, tr("Change global tokens"), kGlobalControl);
}

void ControlsDock::onHeads(int index) {
    if (index < 0) return;
    attn::SceneSpec s = scene_->spec();
    s.heads = heads_->itemData(index).toInt();
    if (s.kv_heads > 0 && s.heads % s.kv_heads != 0) s.kv_heads = 0;
    scene_->setSpec(s, tr("%n head(s)", nullptr, int(s.heads)));
}

void ControlsDock::onDModel(int d) {
    scene_->setSpec(attn::with_d_model(scene_->spec(), d), tr("Change d_model"), kDModelControl);
}

void ControlsDock::onPositional(int index) {
    attn::SceneSpec s = scene_->spec();
    s.positional = attn::PositionalKind(positional_->itemData(index).toInt());
    scene_->setSpec(s, tr("Positions: %1").arg(positional_->itemText(index)));
}

void ControlsDock::onSeed(int seed) {
    attn::SceneSpec s = scene_->spec();
    s.seed = std::uint64_t(seed);
    scene_->setSpec(s, tr("Change seed"), kSeedControl);
}

void ControlsDock::showStyle(const HeatmapStyle& style) {
    const QSignalBlocker b1(colorMap_), b2(logScale_), b3(sharedRange_), b4(aggregation_);
    colorMap_->setCurrentIndex(colorMap_->findData(int(style.colorMap)));
    logScale_->setChecked(style.logScale);
    sharedRange_->setChecked(style.sharedRange);
    aggregation_->setCurrentIndex(aggregation_->findData(int(style.aggregation)));
}

HeatmapStyle ControlsDock::style() const {
    return ViewState::of(scene_)->style();
}

void ControlsDock::applyStyle(const HeatmapStyle& style) {
    ViewState::of(scene_)->setStyle(style);
}

void ControlsDock::onStyleEdited() {
    const HeatmapStyle before = style();
    HeatmapStyle after;
    after.colorMap = ColorMapKind(colorMap_->currentData().toInt());
    after.logScale = logScale_->isChecked();
    after.sharedRange = sharedRange_->isChecked();
    after.aggregation = attn::Aggregation(aggregation_->currentData().toInt());
    if (before == after) return;
    QString what;
    if (after.colorMap != before.colorMap)
        what = tr("Colours: %1").arg(colorMap_->currentText());
    else if (after.logScale != before.logScale)
        what = after.logScale ? tr("Log colour scale") : tr("Linear colour scale");
    else if (after.sharedRange != before.sharedRange)
        what = after.sharedRange ? tr("Shared colour range") : tr("Colour range per head");
    else
        what = tr("Blocks: %1").arg(aggregation_->currentText());
    // One undo step on the view state, undone with the scene's other edits.
    ViewState::of(scene_)->editStyle(after, what);
}
