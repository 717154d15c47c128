// AttnScope — every head of a result as a grid of heatmaps with one colour scale.
// GPL-3.0-or-later.
#include "views/heatmap_grid.hpp"

#include <QGridLayout>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QLabel>
#include <QScrollBar>
#include <algorithm>
#include <cmath>

#include "model/heatmap_model.hpp"
#include "views/head_heatmap.hpp"
#include "views/plot_theme.hpp"
#include "views/qcp.hpp"
#include "views/screen_only.hpp"
#include "views/scroll_frame.hpp"
#include "views/weight_scale.hpp"

namespace {
QString kReadoutHint() {
    return HeatmapGrid::tr(
        "Rows are queries, columns are keys. Hover a cell: its numbers stay here.");
}
}  // namespace

HeatmapGrid::HeatmapGrid(QWidget* parent) : QWidget(parent), model_(new HeatmapModel(this)) {
    setFocusPolicy(Qt::StrongFocus);
    connect(model_, &HeatmapModel::cellsReady, this, &HeatmapGrid::onCellsReady);
    setToolTip(
        tr("Attention weights per head: queries on rows, keys on columns.\n"
           "Click a cell or a row label to select; double-click a head to focus it, Esc "
           "to return; arrow keys move the selection. The wheel scrolls the heads, Ctrl+wheel "
           "zooms the head under the pointer."));
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    message_ = new QLabel(this);
    message_->setWordWrap(true);
    message_->setAlignment(Qt::AlignCenter);
    message_->setVisible(false);
    outer->addWidget(message_);
    note_ = new ElidedLabel(this);
    note_->setObjectName(QStringLiteral("headsNote"));
    note_->setVisible(false);
    note_->setProperty(kScreenOnlyProperty, true);
    outer->addWidget(note_);

    auto* row = new QHBoxLayout;
    row->setSpacing(2);
    outer->addLayout(row, 1);
    headsArea_ = new QWidget;
    layout_ = new QGridLayout(headsArea_);
    layout_->setContentsMargins(0, 0, 0, 0);
    layout_->setSpacing(kSpacing);
    headsArea_->installEventFilter(this);
    // Below every head's readable size the heads scroll; the colour scale stays in view.
    frame_ = new ScrollFrame(headsArea_, this);
    row->addWidget(frame_, 1);
    connect(frame_, &ScrollFrame::viewportResized, this, [this] {
        if (arrangementFor(visibleCount()) != arrangement_) relayout();
    });

    scalePlot_ = new QCustomPlot(this);
    scalePlot_->setFixedWidth(78);
    scalePlot_->plotLayout()->clear();
    scale_ = new QCPColorScale(scalePlot_);
    scale_->setBarWidth(12);
    scale_->axis()->setLabel(tr("weight"));
    // Room above and below the bar: QCustomPlot skips a tick label the border would clip, and
    // the log scale's end labels (1 and the floor) sit exactly at the ends.
    scale_->setAutoMargins(QCP::msLeft | QCP::msRight);
    scale_->setMargins(QMargins(0, 10, 0, 10));
    scalePlot_->plotLayout()->addElement(0, 0, scale_);
    scalePlot_->setToolTip(tr("Colour scale shared by every head"));
    row->addWidget(scalePlot_);

    // The hovered cell's numbers stay here while the mouse rests (tooltips vanish).
    readout_ = new ElidedLabel(this);
    readout_->setObjectName(QStringLiteral("cellReadout"));
    readout_->setProperty(kScreenOnlyProperty, true);
    readout_->setToolTipWhenWhole(HeadHeatmap::statsExplanation());
    outer->addWidget(readout_);
    readout_->setFullText(kReadoutHint());
    applyPlotTheme(scalePlot_, palette());
    setStyle(style_);
}

const SceneResultPtr& HeatmapGrid::result() const {
    return model_->result();
}

void HeatmapGrid::setResult(SceneResultPtr result) {
    const SceneResultPtr old = model_->result();
    model_->setResult(std::move(result));
    const int count = model_->headCount();
    const bool sameCount = count == headCount();
    if (focused_ >= count) focused_ = -1;
    ensureHeads(count);
    for (HeadHeatmap* h : heads_)
        h->resultChanged(old.get());
    // A control that changes only the numbers (same heads, same tokens: the heads keep their
    // measured margins) leaves the arrangement as it is: no layout pass over every head. Key/
    // value groups come and go with the model.
    const bool groupsChanged =
        int(groupLabels_.size()) != (groupSize() > 1 ? count / groupSize() : 0);
    if (!sameCount || groupsChanged || arrangementFor(visibleCount()) != arrangement_) relayout();
    redraw();
}

bool HeatmapGrid::setZoom(int head, const HeatmapViewport& region) {
    if (head < 0 || head >= headCount()) return false;
    const HeatmapViewport shown = model_->region(head);
    if (region.n == 0) {
        if (shown.whole()) return true;
        model_->resetZoom(head);
    } else {
        if (region.n != model_->queries(head) || region.m != model_->keys(head)) return false;
        if (region == shown) return true;  // the head's own zoom or pan, reported back
        model_->setRegion(head, region);
    }
    heads_[std::size_t(head)]->refresh();
    return true;
}

void HeatmapGrid::setStyle(const HeatmapStyle& style) {
    style_ = style;
    model_->setAggregation(style.aggregation);
    scale_->setGradient(makeGradient(style.colorMap));
    setWeightScaleType(scale_, style.logScale);
    for (HeadHeatmap* h : heads_)
        h->setStyle(style);
    scalePlot_->setVisible(style.sharedRange);
    redraw();
}

void HeatmapGrid::setSelection(const Selection& selection) {
    model_->setSelection(selection);
    for (HeadHeatmap* h : heads_) {
        h->selectionChanged();
        if (h->isVisible()) h->replot(QCustomPlot::rpQueuedRefresh);
    }
}

void HeatmapGrid::setFocusedHead(int head) {
    if (head >= headCount()) head = -1;
    if (head == focused_) return;
    focused_ = head;
    relayout();
    redraw();
    Q_EMIT focusedHeadChanged(focused_);
}

void HeatmapGrid::setNote(const QString& note) {
    note_->setFullText(note);
    note_->setVisible(!note.isEmpty());
}

void HeatmapGrid::setMessage(const QString& message) {
    message_->setText(message);
    message_->setVisible(!message.isEmpty());
}

QCPRange HeatmapGrid::sharedRange() const {
    return scale_->dataRange();
}

void HeatmapGrid::ensureHeads(int count) {
    while (int(heads_.size()) > count) {
        delete heads_.back();
        heads_.pop_back();
    }
    while (int(heads_.size()) < count) {
        auto* h = new HeadHeatmap(model_, int(heads_.size()), headsArea_);
        h->setStyle(style_);
        connect(h, &HeadHeatmap::cellClicked, this, &HeatmapGrid::onCellClicked);
        connect(h, &HeadHeatmap::hoverTextChanged, this, [this](const QString& text) {
            readout_->setFullText(text.isEmpty() ? kReadoutHint() : text);
        });
        connect(h, &HeadHeatmap::zoomed, this, &HeatmapGrid::zoomChanged);
        connect(h, &HeadHeatmap::menuRequested, this, &HeatmapGrid::headMenuRequested);
        connect(h, &HeadHeatmap::headDoubleClicked, this, [this](int head) {
            setFocusedHead(focused_ == head ? -1 : head);
            Selection s = model_->selection();
            s.head = head;
            Q_EMIT selectionRequested(s);
        });
        heads_.push_back(h);
    }
}

int HeatmapGrid::visibleCount() const {
    return focused_ >= 0 ? std::min(1, headCount()) : headCount();
}

void HeatmapGrid::redraw() {
    // Heads on screen ask for their cells; the others are drawn when scrolled into view.
    drawn_.clear();
    std::vector<std::pair<int, QSize>> wanted;
    for (HeadHeatmap* h : heads_) {
        if ((focused_ >= 0 && h->head() != focused_) || h->deferUntilSeen()) continue;
        drawn_.push_back(h);
        h->updateLayoutNow();
        wanted.emplace_back(h->head(), h->cellBudget());
    }
    // Small cells come at once; larger ones from jobs (one per head, side by side), and the
    // heads are drawn when the last arrives, under one colour range. A head refining a
    // streamed region draws its coarse blocks now.
    model_->update(wanted);
    waiting_.clear();
    for (const auto& [head, budget] : wanted)
        if (model_->pending(head) && !model_->refining(head)) waiting_.push_back(head);
    if (waiting_.empty()) finishRedraw();
}

void HeatmapGrid::onCellsReady(int head) {
    const auto it = std::find(waiting_.begin(), waiting_.end(), head);
    if (it != waiting_.end()) {
        waiting_.erase(it);
        if (waiting_.empty()) finishRedraw();
    } else if (head < headCount() && (focused_ < 0 || focused_ == head)) {
        heads_[std::size_t(head)]->refresh();  // a zoom's or a head's first paint's cells
    }
}

void HeatmapGrid::finishRedraw() {
    std::vector<HeadHeatmap*> visible;
    for (HeadHeatmap* h : heads_)
        if (focused_ < 0 || h->head() == focused_) visible.push_back(h);
    QCPRange shared(0, 0);
    bool first = true;
    for (HeadHeatmap* h : visible) {
        const QCPRange r = h->valueRange(style_.logScale);
        shared =
            first ? r : QCPRange(std::min(shared.lower, r.lower), std::max(shared.upper, r.upper));
        first = false;
    }
    if (first) shared = style_.logScale ? QCPRange(1e-3, 1) : QCPRange(0, 1);
    scale_->setDataRange(shared);
    scale_->axis()->setLabel(weightScaleLabel(style_.logScale, shared.lower));
    for (HeadHeatmap* h : visible) {
        h->setOwnColorScale(!style_.sharedRange);
        h->setColorRange(style_.sharedRange ? shared : h->valueRange(style_.logScale));
    }
    for (HeadHeatmap* h : drawn_)
        h->refresh();
    scalePlot_->replot(QCustomPlot::rpQueuedRefresh);
    ++renders_;
    Q_EMIT rendered();
}

void HeatmapGrid::waitForCells() {
    model_->waitForCells();
}

void HeatmapGrid::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (arrangementFor(visibleCount()) != arrangement_) relayout();
}

void HeatmapGrid::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    // Light/dark switches reach the heads themselves; the shared scale is themed here.
    if (event->type() == QEvent::PaletteChange) {
        applyPlotTheme(scalePlot_, palette());
        scale_->axis()->setTickLabelColor(palette().color(QPalette::WindowText));
        scale_->axis()->setLabelColor(palette().color(QPalette::WindowText));
        scalePlot_->replot(QCustomPlot::rpQueuedRefresh);
    }
}

void HeatmapGrid::onCellClicked(int head, int query, int key) {
    Selection s = model_->selection();
    // As in every list: shift-click selects the range from the selected query (on a key label,
    // with no query, key) to the clicked one; ctrl-click adds it or takes it away.
    const Qt::KeyboardModifiers mods = QGuiApplication::keyboardModifiers();
    if (mods & (Qt::ControlModifier | Qt::ShiftModifier)) {
        if (query >= 0 || key >= 0) {
            if (mods & Qt::ControlModifier)
                s = query >= 0 ? s.withQueryToggled(query) : s.withKeyToggled(key);
            else
                s = query >= 0 ? s.withQueryRange(query) : s.withKeyRange(key);
            s.head = head;
            setFocus(Qt::MouseFocusReason);
            Q_EMIT selectionRequested(s);
            return;
        }
    }
    s.queries.clear();
    if (key >= 0) s.keys.clear();
    s.head = head;
    if (query >= 0) s.query = query;
    if (key >= 0) s.key = key;
    if (query >= 0 && key < 0 && s.key < 0) s.key = query;  // a row label: start on the diagonal
    setFocus(Qt::MouseFocusReason);
    Q_EMIT selectionRequested(s);
}

void HeatmapGrid::keyPressEvent(QKeyEvent* event) {
    const SceneResultPtr& r = result();
    const int n = r ? int(r->q_tokens.size()) : 0;
    const int m = r ? int(r->k_tokens.size()) : 0;
    const Selection& selection = model_->selection();
    Selection s = selection;
    switch (event->key()) {
        case Qt::Key_Escape:
            if (focused_ >= 0) {
                setFocusedHead(-1);
                return;
            }
            break;
        case Qt::Key_Return:
        case Qt::Key_Enter:
            setFocusedHead(focused_ >= 0 ? -1 : s.head);
            return;
        case Qt::Key_Menu:
            requestSelectedMenu();
            return;
        case Qt::Key_Up:
            s.query = std::max(0, s.query - 1);
            break;
        case Qt::Key_Down:
            s.query = std::min(n - 1, s.query + 1);
            break;
        case Qt::Key_Left:
            s.key = std::max(0, s.key - 1);
            break;
        case Qt::Key_Right:
            s.key = std::min(m - 1, s.key + 1);
            break;
        default:
            QWidget::keyPressEvent(event);
            return;
    }
    if (s.query >= 0 && s.key < 0) s.key = s.query;
    if (s != selection && n > 0)
        Q_EMIT selectionRequested(s);
    else
        QWidget::keyPressEvent(event);
}

void HeatmapGrid::paintTo(QPaintDevice* device, const QRect& target) {
    QCPPainter painter(device);
    painter.setRenderHint(QPainter::Antialiasing);
    const QSize own = size();
    if (own.isEmpty()) return;
    const double sx = double(target.width()) / own.width(),
                 sy = double(target.height()) / own.height();
    std::vector<QCustomPlot*> plots;
    for (HeadHeatmap* h : heads_)
        if (h->isVisible() || (focused_ < 0 || h->head() == focused_)) {
            h->ensureRefreshed();  // a head out of view waits for its first paint
            plots.push_back(h);
        }
    if (style_.sharedRange) plots.push_back(scalePlot_);
    waitForCells();  // a figure shows the cells, not the ones a job is replacing
    for (QCustomPlot* p : plots) {
        const QPoint at = p->mapTo(this, QPoint(0, 0));
        painter.save();
        painter.translate(target.topLeft());
        painter.scale(sx, sy);
        painter.translate(at);
        p->toPainter(&painter, p->width(), p->height());
        painter.restore();
    }
}
