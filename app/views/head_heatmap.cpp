// AttnScope — one head's attention weights as a QCustomPlot colour map. GPL-3.0-or-later.
#include "views/head_heatmap.hpp"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "attn/models/run.hpp"
#include "model/numbering.hpp"
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

HeadHeatmap::HeadHeatmap(HeatmapModel* model, int head, QWidget* parent)
    : QCustomPlot(parent), model_(model), head_(head) {
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
    // Keys read upwards along the bottom: upright, neighbouring labels lie side by side a line
    // apart and never overlap (at −65° two labels a line apart overlapped by a twentieth of a
    // line), however long the tokens; rebuildTicks thins them to one per line height.
    xAxis->setTickLabelRotation(-90);
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

void HeadHeatmap::resultChanged(const attn::SceneResult* old) {
    // The label margins are measured on the tokens alone: a control that changes only the
    // numbers (temperature, scaling, mask) keeps them rather than laying out 2 × 256 labels.
    const attn::SceneResult* now = result().get();
    const bool sameTokens =
        old && now && old->q_tokens == now->q_tokens && old->k_tokens == now->k_tokens;
    if (!sameTokens) margins_ = QSize();
}

void HeadHeatmap::setStyle(const HeatmapStyle& style) {
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

void HeadHeatmap::selectionChanged() {
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

void HeadHeatmap::setRegion(const HeatmapViewport& region) {
    model_->setRegion(head_, region);
}

void HeadHeatmap::resetZoom() {
    model_->resetZoom(head_);
}

void HeadHeatmap::showRegion(const HeatmapViewport& v) {
    if (v == region()) return;
    model_->setRegion(head_, v);
    refresh();
    Q_EMIT zoomed(head_, region());  // clamped to the matrix
}

QCPRange HeadHeatmap::valueRange(bool logScale) const {
    // Deferred (deferUntilSeen): the largest weight of the statistics stands for the cells.
    if (refreshPending_ && result() && head_ < int(result()->stats.size())) {
        WeightSpan span;
        span.largest = result()->stats[std::size_t(head_)].largest_weight;
        return weightColorRange(span, logScale);
    }
    return weightColorRange(model_->span(head_), logScale);
}

void HeadHeatmap::fillMap() {
    const attn::AggregatedGrid& cells = model_->cells(head_);
    const int rows = cells.rows, cols = cells.cols;
    // Log colour scales cannot place 0: clamp (only the drawing, the model keeps exact values).
    const double floor = style_.logScale ? std::max(range_.lower, 1e-12) : -1e300;
    QCPColorMapData* data = colorMapCells(cells, floor);
    // Cell centres sit on source indices: block b covers first + [b·f, (b+1)·f) → centre
    // first + b·f + (f−1)/2.
    const double cx = double(cells.firstCol) + (cells.colFactor - 1) / 2.0;
    const double cy = double(cells.firstRow) + (cells.rowFactor - 1) / 2.0;
    data->setRange(QCPRange(cx, cx + std::max(0, cols - 1) * double(cells.colFactor)),
                   QCPRange(cy, cy + std::max(0, rows - 1) * double(cells.rowFactor)));
    map_->setData(data, false);
    map_->setDataRange(range_);
    mapDirty_ = false;
    filled_ = model_->cellsVersion(head_);
}

void HeadHeatmap::refresh() {
    refreshPending_ = false;
    // Lay out first so the cell budget and label spacing use this size, not the previous one.
    updateLayoutNow();
    // Current cells, or the model computes them (a job: its delivery refreshes this head again,
    // the cells drawn until then are the previous or the overview's coarse ones).
    model_->update({{head_, cellBudget()}});
    if (mapDirty_ || filled_ != model_->cellsVersion(head_)) fillMap();
    const HeatmapViewport& v = region();
    xAxis->setRange(double(v.col) - 0.5, double(v.col + v.cols) - 0.5);
    yAxis->setRange(double(v.row) - 0.5, double(v.row + v.rows) - 0.5);
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
    const SceneResultPtr& r = result();
    if (!offScreen || !updatesEnabled() || !r || head_ >= int(r->stats.size()) ||
        head_ >= int(r->heads.size()) || r->heads[std::size_t(head_)].streamed())
        return false;
    // The whole matrix in maximum blocks on a linear scale: the top of the range is the largest
    // weight (every block's maximum is one of the weights, and a masked cell weighs 0).
    const HeatmapViewport& v = region();
    if (model_->aggregation() != attn::Aggregation::Max || style_.logScale ||
        (v.n == queries() && v.m == keys() && !v.whole()))
        return false;
    refreshPending_ = true;  // valueRange() answers from the statistics meanwhile
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
    const SceneResultPtr& r = result();
    const attn::AggregatedGrid& grid = cells();
    const HeatmapViewport& v = region();
    if (!r || head_ >= int(r->heads.size())) return tr("Head %1").arg(shown(head_));
    QString text = tr("Head %1").arg(shown(head_));
    // Grouped-query attention: the heads sharing one key/value head say which (from 1).
    if (r->kv_group_count() < attn::Index(r->heads.size()))
        text += tr(" · KV %1").arg(shown(r->kv_group_of(head_)));
    // The block note goes on the short first line: the statistics line is already the widest.
    if (grid.rowFactor > 1 || grid.colFactor > 1)
        text +=
            tr(" · %1 %2×%3")
                .arg(model_->aggregation() == attn::Aggregation::Max ? tr("max of") : tr("mean of"))
                .arg(grid.rowFactor)
                .arg(grid.colFactor);
    if (refining()) text += tr(" · refining");
    // An ablated head of a model run is marked where it is drawn (its output is replaced).
    if (const auto& run = r->run) {
        // A sliding-window layer (Gemma's local layers, Mistral's) says its window; a global
        // layer of a model that has window layers says so.
        const auto windowed = [](const attn::model::LayerAttention& l) {
            return !l.heads.empty() && l.heads.front().mask.kind == attn::MaskKind::CausalWindow;
        };
        const attn::MaskSpec& m = r->heads[std::size_t(head_)].mask;
        if (m.kind == attn::MaskKind::CausalWindow)
            text += tr(" · window %1").arg(m.window);
        else if (std::any_of(run->layers.begin(), run->layers.end(), windowed))
            text += tr(" · global");
        const auto& a = run->controls.interventions.ablated;
        const attn::model::Site site{attn::model::kSingleStack, int(r->layer), head_};
        if (std::find(a.begin(), a.end(), site) != a.end()) text += tr(" · ablated");
        // Knocked-out edges (their cells are 0 now): query→key, from 1 as the menu says them.
        QStringList edges;
        for (const attn::model::Knockout& k : run->controls.interventions.knockouts)
            if (k.site == site) edges << edgeName(k.query, k.key);
        if (!edges.isEmpty()) text += tr(" · knocked out %1").arg(edges.join(QLatin1Char(',')));
    }
    if (r->preview_stride > 1) text += tr(" · preview: every %1th query").arg(r->preview_stride);
    if (!v.whole())  // short: the title shares its line with the block note
        text += tr(" · zoom %1×%2 at q%3 k%4")
                    .arg(v.rows)
                    .arg(v.cols)
                    .arg(shown(v.row))
                    .arg(shown(v.col));
    if (head_ < int(r->stats.size())) {
        const attn::HeadStats& s = r->stats[std::size_t(head_)];
        text += tr("\nH %1 · max %2").arg(s.entropy, 0, 'f', 2).arg(s.max_weight, 0, 'f', 2);
        // A distance |i − j| means something only when queries and keys are one sentence:
        // across two (cross-attention) it compares positions of different texts.
        if (r->q_tokens == r->k_tokens) text += tr(" · dist %1").arg(s.mean_distance, 0, 'f', 1);
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
