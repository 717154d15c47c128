// AttnScope — one head's attention weights as a QCustomPlot colour map. GPL-3.0-or-later.
#include "views/head_heatmap.hpp"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "attn/model/run.hpp"
#include "model/scheduler.hpp"
#include "views/color_map_cells.hpp"
#include "views/plot_theme.hpp"
#include "views/screen_only.hpp"
#include "views/token_labels.hpp"
#include "views/weight_scale.hpp"

namespace {

/// Reaches an axis's label cache (QCPAxisPainterPrivate::mLabelCache, protected). QCustomPlot
/// keeps 16 rendered tick labels per axis; a head shows up to ~70 per axis, and a cache
/// smaller than the labels drawn misses on every label of every replot (least recently used,
/// drawn in the same order): every replot laid the labels out and rendered them again.
struct AxisAccess : QCPAxis {
    static QCPAxisPainterPrivate* painter(QCPAxis* axis) {
        return axis->*(&AxisAccess::mAxisPainter);
    }
};
struct LabelCacheAccess : QCPAxisPainterPrivate {
    static void setSize(QCPAxisPainterPrivate* painter, int labels) {
        auto& cache = painter->*(&LabelCacheAccess::mLabelCache);
        if (cache.maxCost() < labels) cache.setMaxCost(labels);
    }
};

/// More than a head ever labels on one axis (rebuildTicks thins to a label per line height).
constexpr int kCachedLabels = 256;

}  // namespace

HeadHeatmap::HeadHeatmap(QWidget* parent) : QCustomPlot(parent) {
    setMinimumSize(120, 120);
    setMouseTracking(true);
    setToolTip(QString());
    setPlottingHint(QCP::phCacheLabels, true);
    setAntialiasedElement(QCP::aeItems, false);

    plotLayout()->insertRow(0);
    QFont titleFont = font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 0.92);
    title_ = new QCPTextElement(this, QString(), titleFont);
    plotLayout()->addElement(0, 0, title_);

    QCPAxisRect* rect = axisRect();
    rect->setupFullAxesBox(false);
    for (QCPAxis* a : {xAxis2, yAxis2}) {
        a->setVisible(false);
    }
    xTicks_.reset(new QCPAxisTickerText);
    yTicks_.reset(new QCPAxisTickerText);
    xAxis->setTicker(xTicks_);
    yAxis->setTicker(yTicks_);
    for (QCPAxis* a : {xAxis, yAxis}) {
        a->setSubTicks(false);
        a->setTickLength(0, 3);
        a->grid()->setVisible(false);
        QFont f = font();
        f.setPointSizeF(std::max(7.0, f.pointSizeF() * 0.85));
        a->setTickLabelFont(f);
        LabelCacheAccess::setSize(AxisAccess::painter(a), kCachedLabels);
    }
    // Keys read along the bottom, rotated so long tokens do not overlap.
    xAxis->setTickLabelRotation(-65);
    yAxis->setRangeReversed(true);  // query 0 on top, like a matrix
    // No axis titles on each head: in a grid they cost every head a line and a column, and
    // four heads would no longer fit the default window. The grid says once which axis is which
    // (its readout line: "rows are queries, columns are keys"), and so does the cell tooltip.

    map_ = new QCPColorMap(xAxis, yAxis);
    map_->setInterpolate(false);
    map_->setTightBoundary(false);

    rowItem_ = new QCPItemRect(this);
    cellItem_ = new QCPItemRect(this);
    for (QCPItemRect* item : {rowItem_, cellItem_}) {
        item->setClipToAxisRect(true);
        item->setBrush(Qt::NoBrush);
        item->setSelectable(false);
        item->setVisible(false);
        item->setProperty(kSelectionMarkProperty, true);
    }
    applyTheme();
    setStyle(style_);
}

void HeadHeatmap::setResult(SceneResultPtr result, int head) {
    // The label margins are measured on the tokens alone: a control that changes only the
    // numbers (temperature, scaling, mask) keeps them rather than laying out 2 × 256 labels.
    const bool sameTokens = result_ && result && result_->q_tokens == result->q_tokens &&
                            result_->k_tokens == result->k_tokens;
    result_ = std::move(result);
    head_ = head;
    cellsDirty_ = true;
    if (!sameTokens) margins_ = QSize();
}

void HeadHeatmap::setStyle(const HeatmapStyle& style) {
    if (style.aggregation != style_.aggregation) cellsDirty_ = true;
    // A new colour map only recolours the map's image; the log scale's floor changes the data.
    if (style.logScale != style_.logScale) mapDirty_ = true;
    style_ = style;
    map_->setGradient(makeGradient(style.colorMap));
    if (scale_) scale_->setGradient(map_->gradient());
    map_->setDataScaleType(style.logScale ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (scale_) setWeightScaleType(scale_, style.logScale);
}

void HeadHeatmap::setColorRange(const QCPRange& range) {
    if (style_.logScale && range.lower != range_.lower) mapDirty_ = true;  // the floor moved
    range_ = range;
    map_->setDataRange(range);
    if (scale_) scale_->axis()->setLabel(weightScaleLabel(style_.logScale, range.lower));
}

void HeadHeatmap::setSelection(const Selection& selection) {
    selection_ = selection;
    updateSelectionItems();
}

void HeadHeatmap::setOwnColorScale(bool on) {
    if (on == (scale_ != nullptr)) return;
    if (on) {
        scale_ = new QCPColorScale(this);
        scale_->setBarWidth(10);
        plotLayout()->addElement(1, 1, scale_);
        // A map attached to a scale takes the scale's gradient (QCustomPlot's default is a
        // blue-white one): the scale gets the chosen colour map first.
        scale_->setGradient(map_->gradient());
        map_->setColorScale(scale_);
        setWeightScaleType(scale_, style_.logScale);
        scale_->setDataRange(range_);
        auto* group = new QCPMarginGroup(this);
        axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, group);
        scale_->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    } else {
        map_->setColorScale(nullptr);
        plotLayout()->remove(scale_);
        plotLayout()->simplify();
        scale_ = nullptr;
    }
    margins_ = QSize();
    applyTheme();
}

attn::Index HeadHeatmap::queries() const {
    return result_ && head_ < int(result_->heads.size()) ? result_->query_count() : 0;
}

attn::Index HeadHeatmap::keys() const {
    return result_ && head_ < int(result_->heads.size()) ? result_->key_count() : 0;
}

QSize HeadHeatmap::wantedFactors(const QSize& budget) const {
    return {attn::blockFactor(view_.cols, budget.width()),
            attn::blockFactor(view_.rows, budget.height())};
}

void HeadHeatmap::setRegion(const HeatmapViewport& region) {
    HeatmapViewport v = region;
    v.n = queries();
    v.m = keys();
    v.rows = std::clamp<attn::Index>(v.rows, std::min<attn::Index>(v.n, 1), v.n);
    v.cols = std::clamp<attn::Index>(v.cols, std::min<attn::Index>(v.m, 1), v.m);
    v.row = std::clamp<attn::Index>(v.row, 0, v.n - v.rows);
    v.col = std::clamp<attn::Index>(v.col, 0, v.m - v.cols);
    if (v == view_) return;
    view_ = v;
    regionChanged();
}

void HeadHeatmap::resetZoom() {
    HeatmapViewport whole;
    whole.reset(queries(), keys());
    setRegion(whole);
}

void HeadHeatmap::regionChanged() {
    cellsDirty_ = true;
}

void HeadHeatmap::prepare(const QSize& budget) {
    if (!result_ || head_ >= int(result_->heads.size()) || queries() == 0 || keys() == 0) {
        cells_ = attn::AggregatedGrid{};
        measureSpan();
        cellsDirty_ = false;
        return;
    }
    if (view_.n != queries() || view_.m != keys()) view_.reset(queries(), keys());
    // Only a change of block factor (or of region) needs new cells; small resizes keep them.
    const QSize factors = wantedFactors(budget);
    if (!cellsDirty_ && factors == factors_) return;
    // Stored weights are aggregated; a streamed head reduces its overview, or computes a region
    // finer than the overview from Q and K (a large one off the GUI thread, the overview's
    // blocks drawn meanwhile).
    QSize coarse;
    regionWanted_ = needsRegionJob(budget, &coarse);
    regionDropped_ = !regionWanted_ && refining_;
    const QSize drawn = regionWanted_ ? coarse : budget;
    cells_ = result_->drawn_blocks(head_, view_.row, view_.rows, view_.col, view_.cols,
                                   drawn.height(), drawn.width(), style_.aggregation);
    measureSpan();  // here, off the GUI thread when the grid prepares heads in parallel
    factors_ = factors;
    budget_ = budget;
    cellsDirty_ = false;
    mapDirty_ = true;
}

void HeadHeatmap::measureSpan() {
    WeightSpan span;
    for (std::size_t i = 0; i < cells_.values.size(); ++i) {
        if (cells_.masked[i]) continue;
        const double v = cells_.values[i];
        span.largest = std::max(span.largest, v);
        if (v > 0) span.smallestPositive = std::min(span.smallestPositive, v);
        span.hasZero = span.hasZero || v <= 0;
    }
    span_ = span;
}

QCPRange HeadHeatmap::valueRange(bool logScale) const {
    return weightColorRange(span_, logScale);
}

void HeadHeatmap::fillMap() {
    const int rows = cells_.rows, cols = cells_.cols;
    // Log colour scales cannot place 0: clamp (only the drawing, cells_ keeps the exact values).
    const double floor = style_.logScale ? std::max(range_.lower, 1e-12) : -1e300;
    QCPColorMapData* data = colorMapCells(cells_, floor);
    // Cell centres sit on source indices: block b covers first + [b·f, (b+1)·f) → centre
    // first + b·f + (f−1)/2.
    const double cx = double(cells_.firstCol) + (cells_.colFactor - 1) / 2.0;
    const double cy = double(cells_.firstRow) + (cells_.rowFactor - 1) / 2.0;
    data->setRange(QCPRange(cx, cx + std::max(0, cols - 1) * double(cells_.colFactor)),
                   QCPRange(cy, cy + std::max(0, rows - 1) * double(cells_.rowFactor)));
    map_->setData(data, false);
    map_->setDataRange(range_);
    mapDirty_ = false;
}

void HeadHeatmap::refresh() {
    refreshPending_ = false;
    // Lay out first so the cell budget and label spacing use this size, not the previous one.
    updateLayoutNow();
    if (view_.n != queries() || view_.m != keys()) {
        view_.reset(queries(), keys());
        cellsDirty_ = true;
    }
    if (cellsDirty_ || wantedFactors(cellBudget()) != factors_) prepare(cellBudget());
    if (regionWanted_) {
        requestRegion();
    } else if (regionDropped_) {
        // Prepared at once since: a job still computing an older region must not replace it.
        Scheduler::instance().cancel(this, kRegionJob);
        regionDropped_ = refining_ = false;
    }
    if (mapDirty_) fillMap();
    xAxis->setRange(double(view_.col) - 0.5, double(view_.col + view_.cols) - 0.5);
    yAxis->setRange(double(view_.row) - 0.5, double(view_.row + view_.rows) - 0.5);
    map_->setDataRange(range_);
    title_->setText(titleText());
    rebuildTicks();
    updateSelectionItems();
    replotWhenSeen();
}

bool HeadHeatmap::deferUntilSeen() {
    // Only in a shown window, where a head out of view (scrolled away, or on a tab not shown)
    // is painted when it comes into view: a grid rendered without a window (tests, figures)
    // draws every head at once.
    const bool offScreen = window()->isVisible() && (!isVisible() || visibleRegion().isEmpty());
    if (!offScreen || !updatesEnabled() || !result_ || head_ >= int(result_->stats.size()) ||
        head_ >= int(result_->heads.size()) || result_->heads[std::size_t(head_)].streamed())
        return false;
    // The whole matrix in maximum blocks on a linear scale: the top of the range is the largest
    // weight (every block's maximum is one of the weights, and a masked cell weighs 0).
    if (style_.aggregation != attn::Aggregation::Max || style_.logScale ||
        (view_.n == queries() && view_.m == keys() && !view_.whole()))
        return false;
    span_ = WeightSpan{};
    span_.largest = result_->stats[std::size_t(head_)].largest_weight;
    cellsDirty_ = true;
    refreshPending_ = true;
    return true;
}

void HeadHeatmap::ensureRefreshed() {
    if (!refreshPending_) return;
    refreshPending_ = false;
    refresh();
}

void HeadHeatmap::replotWhenSeen() {
    // A head scrolled out of the grid's view (or not shown) is replotted when it is next
    // painted: a grid of 12 heads shows 2 to 4 of them at 1280 × 800. With updates off (the
    // command line's figure, which the export paints itself) it is never painted at all.
    if (visibleRegion().isEmpty() || !updatesEnabled()) {
        replotPending_ = true;
        return;
    }
    replotPending_ = false;
    replot(rpQueuedRefresh);
}

void HeadHeatmap::paintEvent(QPaintEvent* event) {
    ensureRefreshed();  // it replots, or sets replotPending_ while still not on screen
    if (replotPending_) {
        replotPending_ = false;
        // Draws the buffers; its update() asks for one more paint, of the same buffers.
        replot(rpQueuedRefresh);
    }
    QCustomPlot::paintEvent(event);
}

QString HeadHeatmap::titleText() const {
    if (!result_ || head_ >= int(result_->heads.size())) return tr("Head %1").arg(head_ + 1);
    QString text = tr("Head %1").arg(head_ + 1);
    // Grouped-query attention: the heads sharing one key/value head say which (from 1).
    if (result_->kv_group_count() < attn::Index(result_->heads.size()))
        text += tr(" · KV %1").arg(result_->kv_group_of(head_) + 1);
    // The block note goes on the short first line: the statistics line is already the widest.
    if (cells_.rowFactor > 1 || cells_.colFactor > 1)
        text +=
            tr(" · %1 %2×%3")
                .arg(style_.aggregation == attn::Aggregation::Max ? tr("max of") : tr("mean of"))
                .arg(cells_.rowFactor)
                .arg(cells_.colFactor);
    if (refining_) text += tr(" · refining");
    // An ablated head of a model run is marked where it is drawn (its output is replaced).
    if (const auto& run = result_->run) {
        const auto& a = run->controls.interventions.ablated;
        if (std::find(a.begin(), a.end(), attn::model::HeadRef{int(result_->layer), head_}) !=
            a.end())
            text += tr(" · ablated");
        // Knocked-out edges (their cells are 0 now): q>k as the CLI spells them, from 0.
        QStringList edges;
        for (const attn::model::Knockout& k : run->controls.interventions.knockouts)
            if (k.layer == int(result_->layer) && k.head == head_)
                edges << (k.query < 0 ? QStringLiteral("*") : QString::number(k.query)) +
                             QStringLiteral(">") + QString::number(k.key);
        if (!edges.isEmpty()) text += tr(" · knocked out %1").arg(edges.join(QLatin1Char(',')));
    }
    if (result_->preview_stride > 1)
        text += tr(" · preview: every %1th query").arg(result_->preview_stride);
    if (!view_.whole())  // short: the title shares its line with the block note
        text += tr(" · zoom %1×%2 at q%3 k%4")
                    .arg(view_.rows)
                    .arg(view_.cols)
                    .arg(view_.row)
                    .arg(view_.col);
    if (head_ < int(result_->stats.size())) {
        const attn::HeadStats& s = result_->stats[std::size_t(head_)];
        text += tr("\nH %1 · max %2").arg(s.entropy, 0, 'f', 2).arg(s.max_weight, 0, 'f', 2);
        // A distance |i − j| means something only when queries and keys are one sentence:
        // across two (cross-attention) it compares positions of different texts.
        if (result_->q_tokens == result_->k_tokens)
            text += tr(" · dist %1").arg(s.mean_distance, 0, 'f', 1);
    }
    return text;
}

void HeadHeatmap::changeEvent(QEvent* event) {
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyTheme();
        updateSelectionItems();
        replot(rpQueuedRefresh);
    }
}

void HeadHeatmap::applyTheme() {
    applyPlotTheme(this, palette());
    axisRect()->setBackground(QBrush(maskedCellColor(palette()), Qt::BDiagPattern));
    if (scale_) {
        scale_->axis()->setTickLabelColor(palette().color(QPalette::WindowText));
        scale_->axis()->setBasePen(QPen(palette().color(QPalette::WindowText)));
        scale_->axis()->setTickPen(QPen(palette().color(QPalette::WindowText)));
    }
}
