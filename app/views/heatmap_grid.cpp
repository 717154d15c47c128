// AttnScope — every head of a result as a grid of heatmaps with one colour scale.
// GPL-3.0-or-later.
#include "views/heatmap_grid.hpp"

#include <QGridLayout>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QLabel>
#include <QScrollBar>
#include <QtConcurrent/QtConcurrentMap>
#include <algorithm>
#include <cmath>

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

HeatmapGrid::HeatmapGrid(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setToolTip(
        tr("Attention weights per head: queries on rows, keys on columns.\n"
           "Click a cell or a row label to select; double-click a head to focus it, Esc "
           "to return; arrow keys move the selection."));
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

void HeatmapGrid::setResult(SceneResultPtr result) {
    result_ = std::move(result);
    const int count = result_ ? int(result_->heads.size()) : 0;
    const bool sameCount = count == headCount();
    if (focused_ >= count) focused_ = -1;
    ensureHeads(count);
    for (int h = 0; h < count; ++h)
        heads_[std::size_t(h)]->setResult(result_, h);
    // A control that changes only the numbers (same heads, same tokens: the heads keep their
    // measured margins) leaves the arrangement as it is: no layout pass over every head.
    if (!sameCount || arrangementFor(visibleCount()) != arrangement_) relayout();
    redraw();
}

void HeatmapGrid::setStyle(const HeatmapStyle& style) {
    style_ = style;
    scale_->setGradient(makeGradient(style.colorMap));
    setWeightScaleType(scale_, style.logScale);
    for (HeadHeatmap* h : heads_)
        h->setStyle(style);
    scalePlot_->setVisible(style.sharedRange);
    redraw();
}

void HeatmapGrid::setSelection(const Selection& selection) {
    selection_ = selection;
    for (HeadHeatmap* h : heads_) {
        h->setSelection(selection);
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
        auto* h = new HeadHeatmap(headsArea_);
        h->setStyle(style_);
        h->setSelection(selection_);
        connect(h, &HeadHeatmap::cellClicked, this, &HeatmapGrid::onCellClicked);
        connect(h, &HeadHeatmap::cellHovered, this, [this, h](int, int query, int key) {
            const QString text = query >= 0 ? h->cellSummary(query, key) : QString();
            readout_->setFullText(text.isEmpty() ? kReadoutHint() : text);
        });
        connect(h, &HeadHeatmap::headDoubleClicked, this, [this](int head) {
            setFocusedHead(focused_ == head ? -1 : head);
            Selection s = selection_;
            s.head = head;
            Q_EMIT selectionRequested(s);
        });
        heads_.push_back(h);
    }
}

int HeatmapGrid::visibleCount() const {
    return focused_ >= 0 ? std::min(1, headCount()) : headCount();
}

HeatmapGrid::Arrangement HeatmapGrid::arrangementFor(int count) const {
    Arrangement best;
    if (count <= 0 || heads_.empty()) return best;
    HeadHeatmap* first = heads_.front();
    const QSize least = first->readableSize(), margins = first->readableMargins();
    const int n = std::max(1, first->rowCount()), m = std::max(1, first->columnCount());
    const QSize view = frame_->maximumViewportSize();
    const int sp = kSpacing;
    // Everything in view: the column count giving the largest cells, every head readable.
    double bestCell = -1;
    for (int c = 1; c <= count; ++c) {
        const int r = (count + c - 1) / c;
        const int slotW = (view.width() - (c - 1) * sp) / c;
        const int slotH = (view.height() - (r - 1) * sp) / r;
        if (slotW < least.width() || slotH < least.height()) continue;
        const double cell =
            std::min(double(slotW - margins.width()) / m, double(slotH - margins.height()) / n);
        if (cell > bestCell + 1e-9) {
            bestCell = cell;
            best.columns = c;
        }
    }
    if (best.columns > 0) {
        const int r = (count + best.columns - 1) / best.columns;
        best.minimum = QSize(best.columns * least.width() + (best.columns - 1) * sp,
                             r * least.height() + (r - 1) * sp);
        return best;
    }
    // Too small for all of them: as many readable columns as the width holds, and scroll down
    // (the vertical scroll bar takes its width first).
    const int bar = frame_->verticalScrollBar()->sizeHint().width();
    const int width = std::max(1, view.width() - bar);
    best.columns = std::clamp((width + sp) / (least.width() + sp), 1, count);
    const int r = (count + best.columns - 1) / best.columns;
    best.minimum = QSize(best.columns * least.width() + (best.columns - 1) * sp,
                         r * least.height() + (r - 1) * sp);
    return best;
}

void HeatmapGrid::relayout() {
    const int count = headCount();
    arrangement_ = arrangementFor(visibleCount());
    const int cols = std::max(1, arrangement_.columns);
    for (HeadHeatmap* h : heads_)
        layout_->removeWidget(h);
    int slot = 0;
    for (int i = 0; i < count; ++i) {
        HeadHeatmap* h = heads_[std::size_t(i)];
        const bool show = focused_ < 0 || focused_ == i;
        h->setVisible(show);
        if (!show) continue;
        layout_->addWidget(h, slot / cols, slot % cols);
        ++slot;
    }
    // Equal stretch so every head gets the same size.
    for (int c = 0; c < layout_->columnCount(); ++c)
        layout_->setColumnStretch(c, c < cols ? 1 : 0);
    const int rows = (slot + cols - 1) / cols;
    for (int r = 0; r < layout_->rowCount(); ++r)
        layout_->setRowStretch(r, r < rows ? 1 : 0);
    columns_ = cols;
    frame_->setContentMinimum(arrangement_.minimum);
    // Place the heads now, even when hidden (offscreen rendering): the outer layout sizes the
    // frame, the frame sizes the heads area, then the grid layout sizes the heads.
    layout()->activate();
    frame_->settle();
    layout_->activate();
}

void HeatmapGrid::redraw() {
    std::vector<HeadHeatmap*> visible;
    for (HeadHeatmap* h : heads_)
        if (focused_ < 0 || h->head() == focused_) visible.push_back(h);
    // attn::Aggregation touches every weight: run heads in parallel when it is worth it.
    const attn::Index n = result_ ? attn::Index(result_->q_tokens.size()) : 0;
    std::vector<std::pair<HeadHeatmap*, QSize>> jobs;
    std::vector<HeadHeatmap*> drawn;  // the rest are drawn when scrolled into view
    for (HeadHeatmap* h : visible) {
        if (h->deferUntilSeen()) continue;
        drawn.push_back(h);
        h->updateLayoutNow();
        jobs.emplace_back(h, h->cellBudget());
    }
    const auto prepare = [](const std::pair<HeadHeatmap*, QSize>& j) {
        j.first->prepare(j.second);
    };
    if (jobs.size() > 1 && n * n * attn::Index(jobs.size()) > 1'000'000)
        QtConcurrent::blockingMap(jobs, prepare);
    else
        for (const auto& j : jobs)
            prepare(j);

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
    for (HeadHeatmap* h : drawn)
        h->refresh();
    scalePlot_->replot(QCustomPlot::rpQueuedRefresh);
    ++renders_;
    Q_EMIT rendered();
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
    Selection s = selection_;
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
    const int n = result_ ? int(result_->q_tokens.size()) : 0;
    const int m = result_ ? int(result_->k_tokens.size()) : 0;
    Selection s = selection_;
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
    if (s != selection_ && n > 0)
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
