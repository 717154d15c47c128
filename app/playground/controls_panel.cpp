// AttnScope — the playground's own controls. GPL-3.0-or-later.
#include "playground/controls_panel.hpp"
#include "model/undo_command.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace {

// Merge ids: consecutive edits of one spin box are one undo step.

QDoubleSpinBox* spin(double lo, double hi, double step, int decimals) {
    auto* s = new QDoubleSpinBox;
    s->setRange(lo, hi);
    s->setSingleStep(step);
    s->setDecimals(decimals);
    s->setKeyboardTracking(false);
    return s;
}

}  // namespace

ControlsPanel::ControlsPanel(PlaygroundModel* model, QWidget* parent)
    : QWidget(parent), model_(model) {
    setObjectName(QStringLiteral("playgroundControls"));
    auto* top = new QVBoxLayout(this);
    top->setContentsMargins(4, 4, 4, 4);

    // The help comes first: below the controls it sat under the fold of a 1280×800 screen.
    auto* help = new QLabel(
        tr("<b>Drag</b> any point \u00b7 <b>double-click</b>: add key+value \u00b7 "
           "<b>Shift+double-click</b>: add query \u00b7 <b>Ctrl-click</b>: multi-select "
           "\u00b7 <b>Alt-click</b> a key: mask \u00b7 <b>Del</b>: delete \u00b7 "
           "<b>arrows</b>: nudge \u00b7 <b>wheel</b>: zoom \u00b7 drag the background: pan"));
    help->setObjectName(QStringLiteral("playgroundHelp"));
    help->setWordWrap(true);
    help->setStyleSheet(QStringLiteral("color: palette(dark);"));
    top->addWidget(help);

    auto* presetRow = new QHBoxLayout;
    preset_ = new QComboBox;
    preset_->addItem(tr("Load a preset\u2026"));
    for (auto p : attn::playground_presets())
        preset_->addItem(
            QString::fromUtf8(attn::playground_preset_name(p).data(),
                              static_cast<qsizetype>(attn::playground_preset_name(p).size())),
            static_cast<int>(p));
    auto* fit = new QPushButton(tr("Fit view"));
    presetRow->addWidget(preset_, 1);
    presetRow->addWidget(fit);
    top->addLayout(presetRow);
    connect(fit, &QPushButton::clicked, this, &ControlsPanel::fitRequested);
    connect(preset_, &QComboBox::activated, this, [this](int index) {
        if (index <= 0) return;
        const auto p = static_cast<attn::PlaygroundPreset>(preset_->itemData(index).toInt());
        auto s = attn::playground_preset(p);
        s.overlay = model_->state().overlay;  // a view choice, not part of the example
        model_->setState(s, tr("Load preset \u201c%1\u201d").arg(preset_->itemText(index)));
        preset_->setCurrentIndex(0);
        Q_EMIT fitRequested();
    });

    auto* scoreGroup = new QGroupBox(tr("Score function"));
    auto* sf = new QFormLayout(scoreGroup);
    score_ = new QComboBox;
    score_->addItem(tr("dot  q\u00b7k"), static_cast<int>(attn::ScoreKind::Dot));
    score_->addItem(tr("general  q\u1d40Wk"), static_cast<int>(attn::ScoreKind::General));
    score_->addItem(tr("additive (Bahdanau)"), static_cast<int>(attn::ScoreKind::Additive));
    score_->addItem(tr("RBF kernel"), static_cast<int>(attn::ScoreKind::Rbf));
    sf->addRow(tr("s(q, k)"), score_);
    auto* wGrid = new QGridLayout;
    for (int k = 0; k < 4; ++k) {
        w_[k] = spin(-10, 10, 0.1, 2);
        wGrid->addWidget(w_[k], k / 2, k % 2);
        connect(w_[k], &QDoubleSpinBox::valueChanged, this, [this, k](double v) {
            edit(tr("Edit W"), kPlaygroundW + k,
                 [&](attn::PlaygroundState& s) { s.W(k / 2, k % 2) = v; });
        });
    }
    sf->addRow(tr("W (2\u00d72)"), wGrid);
    sigma_ = spin(0.05, 20, 0.05, 2);
    sf->addRow(tr("\u03c3 (RBF)"), sigma_);
    connect(score_, &QComboBox::activated, this, [this](int index) {
        const auto kind = static_cast<attn::ScoreKind>(score_->itemData(index).toInt());
        edit(tr("Change score function"), -1, [&](attn::PlaygroundState& s) { s.score = kind; });
    });
    connect(sigma_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        edit(tr("Change \u03c3"), kPlaygroundSigma, [&](attn::PlaygroundState& s) { s.sigma = v; });
    });
    top->addWidget(scoreGroup);

    auto* softGroup = new QGroupBox(tr("Scaling and temperature"));
    auto* tf = new QFormLayout(softGroup);
    scale_ = new QCheckBox(tr("divide by \u221ad\u2096"));
    tf->addRow(tr("Scaling"), scale_);
    asIf_ = new QSpinBox;
    asIf_->setRange(1, 4096);
    asIf_->setKeyboardTracking(false);
    asIf_->setToolTip(
        tr("Scores are multiplied by \u221a(N/2), as a dot product in N dimensions "
           "would grow; scaling divides by \u221aN."));
    tf->addRow(tr("as if d\u2096 ="), asIf_);
    tau_ = spin(0, 20, 0.1, 2);
    tau_->setSpecialValueText(tr("0 (hard argmax)"));
    tf->addRow(tr("Temperature \u03c4"), tau_);
    hard_ = new QCheckBox(tr("sample a key ~ Cat(\u03b1)"));
    tf->addRow(tr("Hard attention"), hard_);
    auto* seedRow = new QHBoxLayout;
    seed_ = new QSpinBox;
    seed_->setKeyboardTracking(false);
    seed_->setRange(0, 1000000);
    auto* resample = new QPushButton(tr("Resample"));
    seedRow->addWidget(seed_, 1);
    seedRow->addWidget(resample);
    tf->addRow(tr("Seed"), seedRow);
    connect(scale_, &QCheckBox::toggled, this, [this](bool on) {
        edit(on ? tr("Scaling on") : tr("Scaling off"), -1,
             [&](attn::PlaygroundState& s) { s.scale = on; });
    });
    connect(asIf_, &QSpinBox::valueChanged, this, [this](int n) {
        edit(tr("Change \u201cas if d_k\u201d"), kPlaygroundAsIf,
             [&](attn::PlaygroundState& s) { s.as_if_dk = n; });
    });
    connect(tau_, &QDoubleSpinBox::valueChanged, this, [this](double t) {
        edit(tr("Change temperature"), kPlaygroundTau,
             [&](attn::PlaygroundState& s) { s.temperature = t; });
    });
    connect(hard_, &QCheckBox::toggled, this, [this](bool on) {
        edit(tr("Hard-attention sample"), -1,
             [&](attn::PlaygroundState& s) { s.hard_sample = on; });
    });
    connect(seed_, &QSpinBox::valueChanged, this, [this](int v) {
        edit(tr("Change seed"), kPlaygroundSeed,
             [&](attn::PlaygroundState& s) { s.seed = static_cast<std::uint64_t>(v); });
    });
    connect(resample, &QPushButton::clicked, this, [this] { seed_->setValue(seed_->value() + 1); });
    top->addWidget(softGroup);

    auto* viewGroup = new QGroupBox(tr("View and editing"));
    auto* vf = new QFormLayout(viewGroup);
    overlay_ = new QCheckBox(tr("overlay keys and values on one plane"));
    vf->addRow(overlay_);
    sorted_ = new QCheckBox(tr("sort the weight bars"));
    vf->addRow(sorted_);
    auto* snapRow = new QHBoxLayout;
    snap_ = new QCheckBox(tr("snap to grid"));
    grid_ = spin(0.05, 5, 0.05, 2);
    snapRow->addWidget(snap_);
    snapRow->addWidget(grid_);
    vf->addRow(snapRow);
    connect(overlay_, &QCheckBox::toggled, this, [this](bool on) {
        edit(on ? tr("Overlay planes") : tr("Planes side by side"), -1,
             [&](attn::PlaygroundState& s) { s.overlay = on; });
    });
    connect(sorted_, &QCheckBox::toggled, this, [this](bool on) {
        edit(tr("Sort bars"), -1, [&](attn::PlaygroundState& s) { s.sorted_bars = on; });
    });
    connect(snap_, &QCheckBox::toggled, this, [this](bool on) {
        edit(tr("Snap to grid"), -1, [&](attn::PlaygroundState& s) { s.snap_to_grid = on; });
    });
    connect(grid_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        edit(tr("Change grid step"), kPlaygroundGrid,
             [&](attn::PlaygroundState& s) { s.grid_step = v; });
    });
    top->addWidget(viewGroup);

    top->addStretch(1);

    connect(model_, &PlaygroundModel::changed, this, &ControlsPanel::refresh);
    refresh();
}

void ControlsPanel::edit(const QString& what, int mergeId,
                         const std::function<void(attn::PlaygroundState&)>& f) {
    auto s = model_->state();
    f(s);
    model_->setState(s, what, mergeId);
}

void ControlsPanel::refresh() {
    const auto& s = model_->state();
    const QSignalBlocker b0(score_), b1(sigma_), b2(scale_), b3(asIf_), b4(tau_), b5(hard_),
        b6(seed_), b7(overlay_), b8(snap_), b9(grid_), b10(sorted_);
    score_->setCurrentIndex(score_->findData(static_cast<int>(s.score)));
    for (int k = 0; k < 4; ++k) {
        const QSignalBlocker bw(w_[k]);
        w_[k]->setValue(s.W(k / 2, k % 2));
        w_[k]->setEnabled(s.score == attn::ScoreKind::General);
    }
    sigma_->setValue(s.sigma);
    sigma_->setEnabled(s.score == attn::ScoreKind::Rbf);
    const bool scalable = attn::score_is_scalable(s.score);
    scale_->setChecked(s.scale && scalable);  // additive/RBF: factor 1, never shown checked
    scale_->setEnabled(scalable);
    asIf_->setValue(s.as_if_dk);
    asIf_->setEnabled(scalable);
    tau_->setValue(s.temperature);
    hard_->setChecked(s.hard_sample);
    seed_->setValue(static_cast<int>(s.seed % 1000001));
    seed_->setEnabled(s.hard_sample);
    overlay_->setChecked(s.overlay);
    snap_->setChecked(s.snap_to_grid);
    grid_->setValue(s.grid_step);
    sorted_->setChecked(s.sorted_bars);
}
