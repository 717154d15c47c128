// AttnScope — the common frame of a theory lens. GPL-3.0-or-later.
#include "lenses/lens_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontMetrics>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QTextDocument>
#include <QTimer>
#include <QVBoxLayout>

#include "model/layer_cache.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "model/view_state.hpp"
#include "views/plot_fit.hpp"
#include "views/plot_theme.hpp"
#include "views/qcp.hpp"
#include "views/scroll_frame.hpp"
#include "widgets/index_spin_box.hpp"
#include "widgets/progress_runner.hpp"
#include "widgets/wheel_guard.hpp"

LensPanel::LensPanel(Scene* scene, const QString& name, LensInputs inputs, QWidget* parent)
    : QWidget(parent), scene_(scene), name_(name), inputs_(inputs) {
    setObjectName(QStringLiteral("lens_") + name);
    // The lens follows its settings in the view state (a session opened, another writer).
    connect(ViewState::of(scene), &ViewState::lensSettingsChanged, this,
            [this](const QString& lens, const QJsonObject& settings) {
                if (lens == name_ && settings != this->settings()) setSettings(settings);
            });
    auto* outer = new QHBoxLayout(this);
    outer->setContentsMargins(6, 6, 6, 6);
    outer->setSpacing(8);
    // The plots keep a readable size and scroll in a small window instead of squashing.
    auto* plotArea = new QWidget;
    grid_ = new QGridLayout(plotArea);
    grid_->setContentsMargins(0, 0, 0, 0);
    grid_->setSpacing(6);
    auto* plots = new ScrollFrame(plotArea);
    outer->addWidget(plots, 1);
    // Beside two docks (an encoder–decoder's Translation and Loaded data at 1280 px) the text
    // column yields down to its least width before the plots scroll.
    plots->setWidthFirst(true);

    auto* side = new QWidget;
    auto* col = new QVBoxLayout(side);
    col->setContentsMargins(4, 0, 4, 0);
    idea_ = new QLabel;
    idea_->setWordWrap(true);
    idea_->setTextFormat(Qt::RichText);
    formula_ = new QLabel;
    formula_->setWordWrap(true);
    formula_->setTextFormat(Qt::RichText);
    formula_->setFrameShape(QFrame::StyledPanel);
    formula_->setMargin(6);
    formula_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form_ = new QFormLayout;
    form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // In a narrow column a field goes under its label rather than past the column's right edge.
    form_->setRowWrapPolicy(QFormLayout::WrapLongRows);
    readout_ = new QLabel;
    readout_->setWordWrap(true);
    readout_->setTextFormat(Qt::RichText);
    readout_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    col->addWidget(idea_);
    col->addWidget(formula_);
    col->addSpacing(4);
    col->addLayout(form_);
    col->addSpacing(4);
    col->addWidget(readout_);
    col->addStretch(1);
    // The text column scrolls on small windows instead of squeezing the plots.
    auto* scroll = new QScrollArea;
    scroll->setWidget(side);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // 310 px when there is room; narrower (it scrolls) before the plots overlap in a window
    // whose docks leave the tab little width.
    scroll->setMinimumWidth(200);
    scroll->setMaximumWidth(310);
    scroll->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
    outer->addWidget(scroll);

    // A lens of its controls alone never hears of the scene.
    if (scene_ && inputs_ == LensInputs::Scene) {
        connect(LayerCache::of(scene_), &LayerCache::sceneSettled, this, [this] {
            if (!waitingScene_) return;
            waitingScene_ = false;
            if (pending_) startJob();
        });
        connect(scene_, &Scene::specChanged, this, [this] {
            const Following following(this);  // the scene's change, not the lens's
            if (isVisible())
                requestRefresh();
            else
                dirty_ = true;
        });
    }
}

namespace {

/// Progress of a refresh on the GUI thread: nobody cancels it.
class NoProgress : public attn::Progress {
  public:
    void update(double) override {}
    bool cancelled() const override { return false; }
};

const QString kJob = QStringLiteral("lens");

}  // namespace

LensPanel::Compute LensPanel::prepare() {
    return [this](attn::Progress&) { return Draw([this] { recompute(); }); };
}

void LensPanel::refresh() {
    waitingScene_ = false;
    dirty_ = false;
    pending_ = false;
    queued_ = false;
    Scheduler::instance().cancel(this, kJob);  // this refresh is newer
    Compute compute;
    {
        const Following following(this);  // a lens adjusting its controls to the numbers
        compute = prepare();
    }
    Draw d;
    bool off = false;
    if (inputs_ == LensInputs::Scene) {
        // A lens of the scene computes as a scheduler job while the GUI thread waits with its
        // events live (behind a progress dialog when it takes long), never on the GUI thread.
        runWithProgress(this, QStringLiteral("lens now"), tr("Computing the lens…"),
                        [&, gui = guiThread_](attn::Progress* progress) {
                            d = compute(*progress);
                            off = std::this_thread::get_id() != gui;
                        });
    } else {
        NoProgress progress;  // a lens of its own controls: cheap, drawn where computed
        d = compute(progress);
    }
    ++computations_;
    offGuiThread_ = off;
    draw(d);
}

void LensPanel::draw(const Draw& draw) {
    const Following following(this);
    draw();
    for (QCustomPlot* p : plots_)
        p->replot();
}

void LensPanel::startJob() {
    pending_ = true;
    dirty_ = false;
    const Following following(this);  // prepare() may adjust a control's range
    Scheduler::instance().submit(this, kJob,
                                 [this, gui = guiThread_, compute = prepare()](attn::Progress& p) {
                                     Draw d = compute(p);
                                     const bool off = std::this_thread::get_id() != gui;
                                     return Scheduler::Delivery([this, d, off] {
                                         pending_ = false;
                                         ++computations_;
                                         offGuiThread_ = off;
                                         draw(d);
                                     });
                                 });
}

void LensPanel::requestRefresh() {
    // Every control change comes here: the view state hears the lens's settings.
    recordSettings();
    if (inputs_ == LensInputs::Scene && !isVisible()) {
        // A hidden lens that reads the scene (e.g. following the selected query) computes
        // nothing: it refreshes when shown or exported (dirty_).
        dirty_ = true;
        return;
    }
    if (queued_) return;
    queued_ = true;
    pending_ = true;
    // After the current event: the subclass's own slots for the same change (e.g. following
    // the scene's sentence) run first.
    QTimer::singleShot(0, this, [this] {
        if (!queued_) return;  // refresh() came first
        queued_ = false;
        if (inputs_ != LensInputs::Scene) return refresh();
        // The window computes the scene: wait for it (lenses read the scene it holds).
        if (scene_ && LayerCache::of(scene_)->sceneBusy()) {
            waitingScene_ = true;
            return;
        }
        startJob();  // supersedes a running one
    });
}

void LensPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    // The text column scrolls: a wheel turn over a slider on the way must not move it.
    guardWheel(this);
    if (!dirty_) return;
    if (inputs_ == LensInputs::Scene)
        startJob();
    else
        refresh();
}

const QList<QCustomPlot*>& LensPanel::currentPlots() {
    if (dirty_ || pending_) refresh();
    return plots_;
}

void LensPanel::refreshWhenShown() {
    if (inputs_ == LensInputs::Scene)
        dirty_ = true;  // computed by a job when shown or exported, never here
    else
        refresh();
}

QString LensPanel::readoutText() const {
    QTextDocument doc;
    doc.setHtml(readout_->text());
    return doc.toPlainText();
}

QString LensPanel::explanationText() const {
    QTextDocument doc;
    doc.setHtml(idea_->text());
    return doc.toPlainText();
}

QCustomPlot* LensPanel::addPlot(int row, int col, const QString& title, int rowSpan, int colSpan) {
    auto* plot = new QCustomPlot;
    plot->setMinimumSize(kPlotMinimum);
    plot->plotLayout()->insertRow(0);
    QFont tf = font();
    tf.setWeight(QFont::DemiBold);
    auto* heading = new QCPTextElement(plot, title, tf);
    // Room below the title: the top tick label of a y axis reaches above the axes.
    heading->setMargins(QMargins(4, 4, 4, 8));
    plot->plotLayout()->addElement(0, 0, heading);
    plot->legend->setVisible(true);
    QFont lf = font();
    lf.setPointSizeF(std::max(7.0, lf.pointSizeF() * 0.85));
    plot->legend->setFont(lf);
    // Icons as tall as a line of text (and the two pixels an underscore reaches below it):
    // QCustomPlot draws both from the item's top and clips to the item, so a taller icon leaves
    // the name sitting above its line and a shorter one cuts the "_" of "σ_i".
    plot->legend->setIconSize(QSize(28, QFontMetrics(lf).height() + 2));
    plot->legend->setRowSpacing(0);
    QColor legendBg = palette().color(QPalette::Base);
    legendBg.setAlpha(215);
    plot->legend->setBrush(legendBg);
    plot->legend->setTextColor(palette().color(QPalette::Text));
    plot->legend->setBorderPen(QPen(palette().color(QPalette::Mid)));
    applyPlotTheme(plot, palette());
    keepPlotReadable(plot);
    grid_->addWidget(plot, row, col, rowSpan, colSpan);
    plots_.push_back(plot);
    return plot;
}

void LensPanel::setPlotTitle(QCustomPlot* plot, const QString& title) {
    if (auto* t = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0)))
        t->setText(title);
}

void LensPanel::setExplanation(const QString& idea, const QString& formula) {
    idea_->setText(idea);
    formula_->setText(formula);
}

void LensPanel::setReadout(const QString& html) {
    readout_->setText(html);
}

QCPGraph* LensPanel::addGraph(QCustomPlot* plot, const QString& name, const QColor& color,
                              Qt::PenStyle style, double width) {
    QCPGraph* g = plot->addGraph();
    g->setName(name);
    g->setPen(QPen(color, width, style));
    return g;
}

void LensPanel::setLogAxis(QCPAxis* axis) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    ticker->setLogBase(10);
    ticker->setSubTickCount(8);
    axis->setTicker(ticker);
    axis->setNumberFormat(QStringLiteral("eb"));
    axis->setNumberPrecision(0);
}

QColor LensPanel::seriesColor(int i) {
    // Okabe–Ito: distinguishable for colour-blind readers.
    static const QColor colors[] = {
        QColor(0, 114, 178), QColor(213, 94, 0),   QColor(0, 158, 115),   QColor(204, 121, 167),
        QColor(230, 159, 0), QColor(86, 180, 233), QColor(120, 120, 120), QColor(240, 228, 66)};
    return colors[i % 8];
}

QSlider* LensPanel::addSlider(const char* key, const QString& label, int min, int max, int value,
                              std::function<QString(int)> text) {
    auto* row = new QWidget;
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    auto* slider = new QSlider(Qt::Horizontal);
    nameControl(slider, key, label);
    slider->setRange(min, max);
    slider->setValue(value);
    auto* shown = new QLabel(text(value));
    shown->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("0000.00")));
    shown->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    h->addWidget(slider, 1);
    h->addWidget(shown);
    form_->addRow(label, row);
    connect(slider, &QSlider::valueChanged, this, [this, shown, text](int v) {
        shown->setText(text(v));
        requestRefresh();
    });
    return slider;
}

QSpinBox* LensPanel::addSpin(const char* key, const QString& label, int min, int max, int value,
                             int step) {
    return placeSpin(new QSpinBox, key, label, min, max, value, step);
}

QSpinBox* LensPanel::addIndexSpin(const char* key, const QString& label, int max, int value) {
    return placeSpin(new IndexSpinBox, key, label, 0, max, value, 1);
}

QSpinBox* LensPanel::placeSpin(QSpinBox* spin, const char* key, const QString& label, int min,
                               int max, int value, int step) {
    nameControl(spin, key, label);
    spin->setKeyboardTracking(false);  // typed numbers apply when done
    spin->setRange(min, max);
    spin->setValue(value);
    spin->setSingleStep(step);
    form_->addRow(label, spin);
    connect(spin, &QSpinBox::valueChanged, this, &LensPanel::requestRefresh);
    return spin;
}

QDoubleSpinBox* LensPanel::addDoubleSpin(const char* key, const QString& label, double min,
                                         double max, double value, double step, int decimals) {
    auto* spin = new QDoubleSpinBox;
    nameControl(spin, key, label);
    spin->setKeyboardTracking(false);
    spin->setRange(min, max);
    spin->setDecimals(decimals);
    spin->setSingleStep(step);
    spin->setValue(value);
    form_->addRow(label, spin);
    connect(spin, &QDoubleSpinBox::valueChanged, this, &LensPanel::requestRefresh);
    return spin;
}

QComboBox* LensPanel::addCombo(const char* key, const QString& label, const QStringList& items,
                               int current) {
    auto* combo = new QComboBox;
    nameControl(combo, key, label);
    combo->addItems(items);
    combo->setCurrentIndex(current);
    form_->addRow(label, combo);
    connect(combo, &QComboBox::currentIndexChanged, this, &LensPanel::requestRefresh);
    return combo;
}

QCheckBox* LensPanel::addCheck(const char* key, const QString& text, bool on) {
    auto* box = new QCheckBox(text);
    nameControl(box, key, text);
    box->setChecked(on);
    form_->addRow(box);
    connect(box, &QCheckBox::toggled, this, &LensPanel::requestRefresh);
    return box;
}
