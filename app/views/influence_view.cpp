// AttnScope — the Influence tab: its panels and their wiring; what they draw is in
// influence_panels.cpp. GPL-3.0-or-later.
#include "views/influence_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>

#include "model/influence_model.hpp"
#include "model/scene.hpp"
#include "model/while_visible.hpp"
#include "views/cell_map.hpp"
#include "views/influence_strips.hpp"
#include "views/influence_text.hpp"
#include "views/plot_theme.hpp"
#include "views/qcp.hpp"
#include "views/screen_only.hpp"
#include "views/scroll_frame.hpp"
#include "views/shown_text.hpp"

namespace {
constexpr const char* kInfluencePanelProperty = "influencePanel";
}  // namespace

InfluenceView::InfluenceView(Scene* scene, QWidget* parent)
    : QWidget(parent),
      scene_(scene),
      model_(InfluenceModel::of(scene)),
      picker_(new CellMap),
      strips_(new InfluenceStrips),
      headMap_(new CellMap),
      pairMap_(new CellMap),
      plot_(new QCustomPlot),
      agreement_(new CellMap),
      pages_(new QTabWidget),
      status_(new QLabel),
      note_(new QLabel),
      faithNote_(new QLabel),
      progress_(new QProgressBar),
      cancel_(new QPushButton(tr("Cancel"))),
      compute_(new QPushButton(tr("Compute"))),
      measure_(new QPushButton(tr("Measure faithfulness"))),
      steps_(new QSpinBox),
      erasures_(new QSpinBox),
      component_(new QComboBox),
      poll_(new QTimer(this)) {
    setObjectName(QStringLiteral("influenceView"));
    picker_->setObjectName(QStringLiteral("influencePicker"));
    picker_->setAxisNames(tr("rank"), tr("position (token)"));
    picker_->setLimit(1.0);
    headMap_->setObjectName(QStringLiteral("influenceHeads"));
    headMap_->setScale(CellMap::Scale::Diverging);
    headMap_->setShowValues(true);
    headMap_->setAxisNames(tr("layer"), tr("head"));
    pairMap_->setObjectName(QStringLiteral("influencePairs"));
    pairMap_->setScale(CellMap::Scale::Diverging);
    pairMap_->setAxisNames(tr("query"), tr("key"));
    plot_->setObjectName(QStringLiteral("influenceFaithfulness"));
    plot_->setMinimumSize(320, 240);
    applyPlotTheme(plot_, palette());
    placeLegendBelow(plot_);
    plot_->legend->setVisible(false);
    plot_->installEventFilter(this);
    agreement_->setObjectName(QStringLiteral("influenceAgreement"));
    agreement_->setScale(CellMap::Scale::Diverging);
    agreement_->setLimit(1.0);
    agreement_->setShowValues(true);
    agreement_->setKeyMarks({-1.0, 0.0, 1.0});
    status_->setObjectName(QStringLiteral("influenceStatus"));
    status_->setWordWrap(true);
    note_->setObjectName(QStringLiteral("influenceNote"));
    note_->setWordWrap(true);
    note_->setText(influence_text::caution());
    faithNote_->setWordWrap(true);
    progress_->setObjectName(QStringLiteral("influenceProgress"));
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(180);
    cancel_->setObjectName(QStringLiteral("influenceCancel"));
    compute_->setObjectName(QStringLiteral("influenceCompute"));
    measure_->setObjectName(QStringLiteral("influenceMeasure"));
    steps_->setObjectName(QStringLiteral("influenceSteps"));
    steps_->setRange(1, 1024);
    steps_->setValue(model_->steps());
    steps_->setPrefix(tr("IG steps "));
    steps_->setToolTip(
        tr("Integrated gradients' steps M (midpoint rule); more steps bring the "
           "tokens' sum closer to the logit's change"));
    steps_->setKeyboardTracking(false);
    erasures_->setObjectName(QStringLiteral("influenceErasures"));
    erasures_->setRange(1, 64);
    erasures_->setValue(model_->erasures());
    erasures_->setPrefix(tr("erase up to "));
    erasures_->setSuffix(tr(" tokens"));
    erasures_->setKeyboardTracking(false);  // "12" typed is 12, not a measurement of 1 first

    // The controls across the top: what runs, how far, and its stop.
    auto* top = new QHBoxLayout;
    top->addWidget(status_, 1);
    top->addWidget(steps_);
    top->addWidget(progress_);
    top->addWidget(cancel_);
    top->addWidget(compute_);

    // Left: the prediction to explain and the strips (one figure), scrolling when short.
    auto* stripsFigure = new QWidget;
    auto* stripsColumn = new QVBoxLayout(stripsFigure);
    stripsColumn->setContentsMargins(0, 0, 0, 0);
    stripsColumn->addWidget(picker_, 1);
    stripsColumn->addWidget(strips_);
    // The strips take their rows' height; the top 5 above take what is left.
    strips_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    // Five rows of cells a line tall under a title of two lines, above the upright tokens (ten
    // characters), the axis name and the colour key with its numbers: never squashed by the
    // strips' wrapped reasons below it (the frame scrolls instead).
    const QFontMetrics fm = fontMetrics();
    picker_->setMinimumHeight(5 * (fm.height() + 4) + 4 * fm.height() + 10 * fm.averageCharWidth() +
                              14 + 6 * 6);
    // A short window scrolls the figure under the Export button, in view however far it
    // scrolls; a long run (an encoder–decoder's source and target side by side) scrolls the
    // strips' cells alone, so the titles wrap in the width in view.
    auto* stripsFrame = new ScrollFrame(stripsFigure);
    stripsFrame->setObjectName(QStringLiteral("influenceStripsFrame"));
    // Readable beside both of an encoder–decoder's docks: every method's name and a dozen cells
    // (the rest scroll). The pages beside the strips give way first, then the docks.
    int names = fontMetrics().horizontalAdvance(tr("Attention L12 H12"));
    for (const QString& key : influence::methodKeys())
        names = std::max(names, fontMetrics().horizontalAdvance(influence_text::name(key)));
    stripsFrame->setMinimumWidth(names +
                                 InfluenceStrips::kLeastCells * InfluenceStrips::kLeastCell + 24 +
                                 style()->pixelMetric(QStyle::PM_ScrollBarExtent));
    QWidget* left = makePanel(QStringLiteral("strips"), stripsFrame);
    // The note (the caution, or the clicked method's definition) under the Export button, as
    // wide as the panel: wrapped there, not cut by the frame's scrolling; a figure leaves it out.
    note_->setProperty(kScreenOnlyProperty, true);
    static_cast<QVBoxLayout*>(left->layout())->insertWidget(1, note_);

    // Right: a page per panel.
    auto* heads = new QWidget;
    auto* headsRow = new QHBoxLayout(heads);
    headsRow->setContentsMargins(0, 0, 0, 0);
    headsRow->addWidget(headMap_, 2);
    headsRow->addWidget(pairMap_, 3);
    pages_->setObjectName(QStringLiteral("influencePages"));
    pages_->setDocumentMode(true);
    component_->setObjectName(QStringLiteral("influenceComponent"));
    component_->addItem(tr("Encoder self-attention"), int(attn::model::Component::Encoder));
    component_->addItem(tr("Decoder self-attention"), int(attn::model::Component::Decoder));
    component_->addItem(tr("Cross-attention"), int(attn::model::Component::Cross));
    component_->setCurrentIndex(component_->findData(int(model_->component())));
    component_->setToolTip(tr("The attention of the encoder–decoder whose heads are mapped"));
    component_->setVisible(false);
    pages_->addTab(makePanel(QStringLiteral("heads"), heads, component_), tr("Per head"));
    auto* faithControls = new QWidget;
    auto* faithRow = new QHBoxLayout(faithControls);
    faithRow->setContentsMargins(0, 0, 0, 0);
    faithRow->addWidget(erasures_);
    faithRow->addWidget(measure_);
    auto* faith = new QWidget;
    auto* faithColumn = new QVBoxLayout(faith);
    faithColumn->setContentsMargins(0, 0, 0, 0);
    faithColumn->addWidget(plot_, 1);
    auto* faithPanel = makePanel(QStringLiteral("faithfulness"), faith, faithControls);
    faithPanel->layout()->addWidget(faithNote_);
    pages_->addTab(faithPanel, tr("Faithfulness"));
    pages_->addTab(makePanel(QStringLiteral("agreement"), agreement_), tr("Agreement"));
    auto* methods = new QLabel(influence_text::methodsPage());
    methods->setObjectName(QStringLiteral("influenceMethods"));
    methods->setWordWrap(true);
    methods->setTextFormat(Qt::RichText);
    methods->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    methods->setContentsMargins(8, 6, 8, 6);
    auto* methodsFrame = new QScrollArea;
    methodsFrame->setWidget(methods);
    methodsFrame->setWidgetResizable(true);
    methodsFrame->setFrameShape(QFrame::NoFrame);
    pages_->addTab(methodsFrame, tr("Methods"));
    pages_->setTabToolTip(0, tr("Where attention mattered: each head's attention × gradient"));
    pages_->setTabToolTip(1, tr("The logit as each method's top tokens are erased, against random "
                                "orders"));
    pages_->setTabToolTip(2, tr("Kendall's τ-b between the methods' rankings"));

    auto* row = new QHBoxLayout;
    row->addWidget(left, 5);
    row->addWidget(pages_, 4);
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(6, 4, 6, 4);
    column->addLayout(top);
    column->addLayout(row, 1);

    connect(picker_, &CellMap::cellClicked, this, [this](int rank, int column) {
        const influence::Result* r = model_->result();
        // An encoder–decoder's columns are its target positions (showResult).
        const int position = r ? column + r->sourceTokens : column;
        if (!r || std::size_t(position) >= r->topIds.size()) return;
        model_->setTarget(position, r->topIds[std::size_t(position)][std::size_t(rank)]);
    });
    connect(strips_, &InfluenceStrips::rowClicked, this, [this](int row) {
        const QStringList& keys = influence::methodKeys();
        note_->setText(row < keys.size()
                           ? influence_text::name(keys[row]) + QStringLiteral(": ") +
                                 influence_text::explanation(keys[row])
                           : tr("The selected head's attention row at the explained position "
                                "(pick another head under “Where attention mattered”). ") +
                                 influence_text::caution());
    });
    connect(headMap_, &CellMap::cellClicked, model_, &InfluenceModel::setHead);
    connect(component_, &QComboBox::activated, this, [this](int index) {
        model_->setComponent(attn::model::Component(component_->itemData(index).toInt()));
    });
    connect(steps_, &QSpinBox::valueChanged, model_, &InfluenceModel::setSteps);
    connect(erasures_, &QSpinBox::valueChanged, model_, &InfluenceModel::setErasures);
    connect(measure_, &QPushButton::clicked, model_, &InfluenceModel::measureFaithfulness);
    connect(cancel_, &QPushButton::clicked, model_, &InfluenceModel::cancel);
    connect(compute_, &QPushButton::clicked, model_, &InfluenceModel::refresh);
    connect(model_, &InfluenceModel::resultChanged, this, &InfluenceView::showResult);
    connect(model_, &InfluenceModel::headChanged, this, &InfluenceView::showHead);
    connect(model_, &InfluenceModel::faithfulnessChanged, this, &InfluenceView::showFaithfulness);
    connect(model_, &InfluenceModel::stateChanged, this, &InfluenceView::showState);
    connect(poll_, &QTimer::timeout, this, [this] {
        if (const JobHandle job = model_->job()) progress_->setValue(int(job->fraction() * 1000));
    });
    visible_ = new WhileVisible(this, [this] { model_->refresh(); });
    connect(scene_, &Scene::specChanged, visible_, &WhileVisible::stale);
    showResult();
    showFaithfulness();
    showState();
}

QWidget* InfluenceView::makePanel(const QString& key, QWidget* figure, QWidget* controls) {
    auto* panel = new QWidget;
    panel->setObjectName(QStringLiteral("influencePanel-") + key);
    panel->setProperty(kInfluencePanelProperty, key);
    figure->setProperty(kFigureProperty, true);
    auto* exportButton = new QPushButton(tr("Export…"));
    exportButton->setObjectName(QStringLiteral("influenceExport-") + key);
    exportButton->setToolTip(tr("This panel as PNG, SVG or PDF, or its numbers as .npy or .csv"));
    exportButton->setProperty(kScreenOnlyProperty, true);
    connect(exportButton, &QPushButton::clicked, this, [this, panel, key] {
        Q_EMIT exportRequested(panel, QStringLiteral("influence-") + key);
    });
    auto* head = new QHBoxLayout;
    if (controls) head->addWidget(controls);
    head->addStretch(1);
    head->addWidget(exportButton);
    auto* column = new QVBoxLayout(panel);
    column->setContentsMargins(0, 2, 0, 0);
    column->addLayout(head);
    column->addWidget(figure, 1);
    return panel;
}

QWidget* InfluenceView::panel(const QString& key) const {
    for (QWidget* w : findChildren<QWidget*>())
        if (w->property(kInfluencePanelProperty).toString() == key) return w;
    return nullptr;
}

QString InfluenceView::panelKey(const QWidget* widget) {
    for (; widget; widget = widget->parentWidget())
        if (const QString key = widget->property(kInfluencePanelProperty).toString();
            !key.isEmpty())
            return key;
    return {};
}

void InfluenceView::showState() {
    const bool busy = model_->busy();
    QString line = model_->status();
    if (line.isEmpty()) {
        if (const influence::Result* r = model_->result()) {
            // An encoder–decoder explains a target position, counted in the target.
            line = (r->sourceTokens > 0 ? tr("Explaining %1 at target position %2 (logit %3): "
                                             "click another top-5 token to explain it.")
                                        : tr("Explaining %1 at position %2 (logit %3): click "
                                             "another top-5 token to explain it."))
                       .arg(quotedToken(r->targetText))
                       .arg(r->position - r->sourceTokens + 1)
                       .arg(r->logit, 0, 'f', 3);
            if (!influence::stripOf(*r, QStringLiteral("integrated_gradients"))->values.empty())
                line += tr(" Integrated gradients: %1 steps, ig_delta %2.")
                            .arg(r->steps)
                            .arg(r->igDelta, 0, 'g', 3);
        }
    }
    status_->setText(line);
    progress_->setVisible(busy);
    progress_->setValue(0);
    cancel_->setEnabled(busy);
    compute_->setEnabled(!busy);
    measure_->setEnabled(!busy && model_->result() && model_->result()->sourceTokens == 0);
    if (busy)
        poll_->start(100);
    else
        poll_->stop();
}

bool InfluenceView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString tip = curveTip(help->pos());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), tip, plot_);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}
