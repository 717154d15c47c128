// AttnScope — the dock with every scene control: construction. Edits are in
// controls_dock_edits.cpp. GPL-3.0-or-later.
#include "widgets/controls_dock.hpp"
#include "model/view_state.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QScrollArea>
#include <QScrollBar>
#include <QShortcut>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include "model/scene.hpp"
#include "widgets/undo_shortcuts.hpp"

namespace {

QFormLayout* makeForm(QGroupBox* box) {
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    form->setHorizontalSpacing(8);
    form->setVerticalSpacing(6);
    return form;
}

}  // namespace

ControlsDock::ControlsDock(Scene* scene, QWidget* parent)
    : QDockWidget(tr("Controls"), parent), scene_(scene) {
    setObjectName(QStringLiteral("controlsDock"));
    auto* content = new QWidget;
    auto* column = new QVBoxLayout(content);
    column->setContentsMargins(6, 6, 6, 6);
    column->setSpacing(8);
    column->addWidget(buildScoreGroup());
    column->addWidget(buildMaskGroup());
    column->addWidget(buildModelGroup());
    column->addWidget(buildDisplayGroup());
    column->addStretch(1);
    auto* scroll = new QScrollArea;
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setWidget(scroll);
    connect(scene_, &Scene::specChanged, this, &ControlsDock::syncFromScene);
    syncFromScene();
}

void ControlsDock::showEvent(QShowEvent* event) {
    // The widths the controls need are only known once they are polished: measured at
    // construction alone, the dock came out 17 px too narrow at 1280×800 and clipped "Scale by
    // 1/√d_k  (d_k = 16)", the combo boxes and the seed's New button.
    fitWidth();
    QDockWidget::showEvent(event);
}

void ControlsDock::fitWidth() {
    // Wide enough for every control: the scroll area only scrolls vertically.
    const auto* scroll = static_cast<QScrollArea*>(widget());
    scroll->widget()->ensurePolished();
    setMinimumWidth(scroll->widget()->minimumSizeHint().width() +
                    scroll->verticalScrollBar()->sizeHint().width() + 6);
}

QWidget* ControlsDock::buildScoreGroup() {
    auto* box = new QGroupBox(tr("Scores"));
    auto* form = makeForm(box);
    scoreForm_ = form;
    // First, above the controls it scopes; shown only while a model runs (syncScope).
    scope_ = new QComboBox;
    scope_->setObjectName(QStringLiteral("scopeBox"));
    scope_->setToolTip(
        tr("Where scaling, the mask and the temperature apply inside the model's run: every "
           "layer, or one layer. The other layers run as the model does (scaled, τ = 1, its own "
           "mask); the layers after a changed one still see its effect."));
    form->addRow(tr("&Apply in:"), scope_);
    connect(scope_, &QComboBox::currentIndexChanged, this, &ControlsDock::onScope);
    // Rotary families only (syncScope shows it): RoPE rotates q and k by their positions; off,
    // the scoped layers score the unrotated q · k, so a head's use of position shows.
    rotaryOff_ = new QCheckBox(tr("Rotary positions off"));
    rotaryOff_->setObjectName(QStringLiteral("rotaryOffBox"));
    rotaryOff_->setToolTip(
        tr("Score q · k without rotary position embeddings (RoPE) in the layers chosen above: "
           "what the head does when it cannot see where tokens are"));
    form->addRow(QString(), rotaryOff_);
    connect(rotaryOff_, &QCheckBox::toggled, this, &ControlsDock::onRotaryOff);
    // Soft-capping families only (Gemma 2): off, the scoped layers skip cap · tanh(s / cap).
    softcapOff_ = new QCheckBox(tr("Soft-capping off"));
    softcapOff_->setObjectName(QStringLiteral("softcapOffBox"));
    softcapOff_->setToolTip(
        tr("Skip the model's soft-capping of the scaled scores (cap · tanh(s / cap)) in the "
           "layers chosen above: how much the cap flattens the head's pattern"));
    form->addRow(QString(), softcapOff_);
    connect(softcapOff_, &QCheckBox::toggled, this, &ControlsDock::onSoftcapOff);

    score_ = new QComboBox;
    score_->addItem(tr("Dot product"));
    score_->addItem(tr("Scaled dot product"));
    score_->addItem(tr("General (Luong)"));
    score_->addItem(tr("Additive (Bahdanau)"));
    score_->addItem(tr("RBF kernel"));
    score_->setToolTip(tr("The compatibility function s(q, k) between a query and a key"));
    form->addRow(tr("&Score:"), score_);
    connect(score_, &QComboBox::currentIndexChanged, this, &ControlsDock::onScore);

    scale_ = new QCheckBox;
    scale_->setToolTip(
        tr("Divide dot-product scores by √d_k so their spread does not grow with "
           "the head width (Ctrl+K)"));
    scale_->setShortcut(QKeySequence(tr("Ctrl+K")));
    form->addRow(QString(), scale_);
    connect(scale_, &QCheckBox::toggled, this, &ControlsDock::onScale);

    sigma_ = new QDoubleSpinBox;
    sigma_->setKeyboardTracking(false);  // typed numbers apply when done (Enter, focus-out)
    sigma_->setRange(0.01, 100);
    sigma_->setDecimals(2);
    sigma_->setSingleStep(0.1);
    sigma_->setToolTip(tr("Bandwidth σ of the RBF kernel score −‖q − k‖² / 2σ²"));
    form->addRow(tr("RBF &σ:"), sigma_);
    connect(sigma_, &QDoubleSpinBox::valueChanged, this, &ControlsDock::onSigma);

    temperature_ = new QDoubleSpinBox;
    temperature_->setKeyboardTracking(false);  // typed numbers apply when done (Enter, focus-out)
    temperature_->setRange(0, 100);
    temperature_->setDecimals(3);
    temperature_->setSingleStep(0.05);
    temperature_->setSpecialValueText(tr("0 (hard max)"));
    temperature_->setToolTip(
        tr("Temperature τ divides the scores before the softmax: small τ "
           "sharpens attention, large τ flattens it; 0 is the argmax"));
    temperatureSlider_ = new QSlider(Qt::Horizontal);
    temperatureSlider_->setRange(0, 1000);
    temperatureSlider_->setToolTip(tr("Temperature on a logarithmic scale from 0.03 to 30"));
    auto* tauRow = new QHBoxLayout;
    tauRow->addWidget(temperatureSlider_, 1);
    tauRow->addWidget(temperature_);
    form->addRow(tr("Temperature τ:"), tauRow);
    connect(temperature_, &QDoubleSpinBox::valueChanged, this, &ControlsDock::onTemperature);
    connect(temperatureSlider_, &QSlider::valueChanged, this, &ControlsDock::onTemperatureSlider);
    return box;
}

QWidget* ControlsDock::buildMaskGroup() {
    auto* box = new QGroupBox(tr("Mask"));
    auto* form = makeForm(box);
    mask_ = new QComboBox;
    const std::pair<attn::MaskKind, QString> kinds[] = {
        {attn::MaskKind::None, tr("None")},
        {attn::MaskKind::Causal, tr("Causal (decoder)")},
        {attn::MaskKind::AntiCausal, tr("Anti-causal")},
        {attn::MaskKind::Padding, tr("Padding")},
        {attn::MaskKind::SlidingWindow, tr("Sliding window")},
        {attn::MaskKind::GlobalWindow, tr("Global + window")},
    };
    for (const auto& [kind, label] : kinds)
        mask_->addItem(label, int(kind));
    mask_->setToolTip(
        tr("Which keys each query may see; hidden pairs are hatched in the heatmaps "
           "(Ctrl+M: next mask)"));
    auto* nextMask = new QShortcut(QKeySequence(tr("Ctrl+M")), this);
    connect(nextMask, &QShortcut::activated, this,
            [this] { mask_->setCurrentIndex((mask_->currentIndex() + 1) % mask_->count()); });
    form->addRow(tr("&Mask:"), mask_);
    connect(mask_, &QComboBox::currentIndexChanged, this, &ControlsDock::onMask);

    window_ = new QSpinBox;
    window_->setKeyboardTracking(false);  // typed numbers apply when done (Enter, focus-out)
    window_->setRange(0, 4096);
    window_->setToolTip(tr("Window radius w: query i sees keys j with |i − j| ≤ w"));
    form->addRow(tr("&Window w:"), window_);
    connect(window_, &QSpinBox::valueChanged, this, &ControlsDock::onWindow);

    global_ = new QLineEdit;
    global_->setPlaceholderText(tr("e.g. 0, 5"));
    global_->setProperty(UndoShortcutRouter::kSceneUndoProperty, true);
    global_->setValidator(
        new QRegularExpressionValidator(QRegularExpression(QStringLiteral("^[0-9 ,]*$")), global_));
    global_->setToolTip(
        tr("Indices of global tokens (comma-separated): they see every key and "
           "every query sees them"));
    form->addRow(tr("&Global tokens:"), global_);
    connect(global_, &QLineEdit::editingFinished, this, &ControlsDock::onGlobal);

    padding_ = new QSpinBox;
    padding_->setKeyboardTracking(false);  // typed numbers apply when done (Enter, focus-out)
    padding_->setRange(0, 4096);
    padding_->setToolTip(
        tr("Number of trailing keys treated as padding and hidden from every "
           "query"));
    form->addRow(tr("Padded &keys:"), padding_);
    connect(padding_, &QSpinBox::valueChanged, this, &ControlsDock::onPadding);
    return box;
}

QWidget* ControlsDock::buildModelGroup() {
    modelGroup_ = new QGroupBox(tr("Synthetic model"));
    auto* form = makeForm(modelGroup_);
    dModel_ = new QSpinBox;
    dModel_->setKeyboardTracking(false);  // typed numbers apply when done (Enter, focus-out)
    dModel_->setRange(1, 4096);
    dModel_->setSingleStep(8);
    dModel_->setToolTip(tr("Width of the embeddings d_model; each head gets d_k = d_model / h"));
    form->addRow(tr("&d_model:"), dModel_);
    connect(dModel_, &QSpinBox::valueChanged, this, &ControlsDock::onDModel);

    heads_ = new QComboBox;
    heads_->setToolTip(tr("Number of heads h; only divisors of d_model are offered"));
    form->addRow(tr("&Heads h:"), heads_);
    connect(heads_, &QComboBox::currentIndexChanged, this, &ControlsDock::onHeads);

    positional_ = new QComboBox;
    positional_->addItem(tr("Sinusoidal"), int(attn::PositionalKind::Sinusoidal));
    positional_->addItem(tr("Learned (random)"), int(attn::PositionalKind::Learned));
    positional_->addItem(tr("None"), int(attn::PositionalKind::None));
    positional_->setToolTip(
        tr("Positional encoding added to the token embeddings; without it "
           "attention cannot tell word order"));
    form->addRow(tr("&Positions:"), positional_);
    connect(positional_, &QComboBox::currentIndexChanged, this, &ControlsDock::onPositional);

    seed_ = new QSpinBox;
    seed_->setKeyboardTracking(false);  // typed numbers apply when done (Enter, focus-out)
    seed_->setRange(0, std::numeric_limits<int>::max());
    seed_->setToolTip(
        tr("Seed of the embeddings and projection weights: the same seed gives the "
           "same scene on every machine"));
    newSeed_ = new QToolButton;
    newSeed_->setText(tr("New"));
    newSeed_->setToolTip(tr("Draw a new seed (Ctrl+R)"));
    newSeed_->setShortcut(QKeySequence(tr("Ctrl+R")));
    auto* seedRow = new QHBoxLayout;
    seedRow->addWidget(seed_, 1);
    seedRow->addWidget(newSeed_);
    form->addRow(tr("Seed:"), seedRow);
    seedRow_ = seedRow;
    connect(seed_, &QSpinBox::valueChanged, this, &ControlsDock::onSeed);
    connect(newSeed_, &QToolButton::clicked, this,
            [this] { seed_->setValue(int((seed_->value() * 2654435761u + 12345u) % 100000u)); });
    return modelGroup_;
}

QWidget* ControlsDock::buildDisplayGroup() {
    auto* box = new QGroupBox(tr("Display"));
    auto* form = makeForm(box);
    colorMap_ = new QComboBox;
    for (ColorMapKind k : allColorMaps())
        colorMap_->addItem(colorMapLabel(k), int(k));
    colorMap_->setToolTip(tr("Perceptually uniform colour map of the weights"));
    form->addRow(tr("&Colours:"), colorMap_);
    logScale_ = new QCheckBox(tr("&Log colour scale"));
    logScale_->setToolTip(tr("Show weights spanning several decades (Ctrl+L)"));
    logScale_->setShortcut(QKeySequence(tr("Ctrl+L")));
    form->addRow(QString(), logScale_);
    sharedRange_ = new QCheckBox(tr("Shared colour range"));
    sharedRange_->setToolTip(
        tr("On: colours are comparable across heads. Off: each head uses its "
           "own range and shows its own colour scale"));
    form->addRow(QString(), sharedRange_);
    aggregation_ = new QComboBox;
    aggregation_->addItem(tr("Maximum"), int(attn::Aggregation::Max));
    aggregation_->addItem(tr("Mean"), int(attn::Aggregation::Mean));
    aggregation_->setToolTip(
        tr("When a sequence has more tokens than the heatmap has pixels, "
           "blocks of cells are drawn as their maximum or mean weight"));
    form->addRow(tr("&Blocks:"), aggregation_);
    connect(colorMap_, &QComboBox::currentIndexChanged, this, &ControlsDock::onStyleEdited);
    connect(logScale_, &QCheckBox::toggled, this, &ControlsDock::onStyleEdited);
    connect(sharedRange_, &QCheckBox::toggled, this, &ControlsDock::onStyleEdited);
    connect(aggregation_, &QComboBox::currentIndexChanged, this, &ControlsDock::onStyleEdited);
    // The controls show the view state's style and follow it (undo, settings, a session).
    showStyle(ViewState::of(scene_)->style());
    connect(ViewState::of(scene_), &ViewState::styleChanged, this, &ControlsDock::showStyle);
    return box;
}
