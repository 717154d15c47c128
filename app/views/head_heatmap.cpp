// AttnScope — one head's attention weights as a QCustomPlot colour map. GPL-3.0-or-later.
#include "views/head_heatmap.hpp"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "views/plot_theme.hpp"
#include "views/screen_only.hpp"
#include "views/token_labels.hpp"
#include "views/weight_scale.hpp"

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
    result_ = std::move(result);
    head_ = head;
    cellsDirty_ = true;
    margins_ = QSize();
}

void HeadHeatmap::setStyle(const HeatmapStyle& style) {
    if (style.aggregation != style_.aggregation) cellsDirty_ = true;
    style_ = style;
    map_->setGradient(makeGradient(style.colorMap));
    map_->setDataScaleType(style.logScale ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (scale_) setWeightScaleType(scale_, style.logScale);
    mapDirty_ = true;
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

void HeadHeatmap::prepare(const QSize& budget) {
    if (!result_ || head_ >= int(result_->heads.size())) {
        cells_ = attn::AggregatedGrid{};
        cellsDirty_ = false;
        return;
    }
    const attn::HeadResult& h = result_->heads[std::size_t(head_)];
    // Only a change of block factor needs new cells; small resizes keep them.
    const int rf = attn::blockFactor(h.weights.rows(), budget.height());
    const int cf = attn::blockFactor(h.weights.cols(), budget.width());
    if (!cellsDirty_ && rf == cells_.rowFactor && cf == cells_.colFactor) return;
    // Scenes computed without their score stages carry the mask as allowed pairs instead.
    cells_ = h.has_stages() ? attn::aggregate(h.weights, &h.masked, budget.height(), budget.width(),
                                              style_.aggregation)
                            : attn::aggregate(h.weights, result_->visible, budget.height(),
                                              budget.width(), style_.aggregation);
    budget_ = budget;
    cellsDirty_ = false;
    mapDirty_ = true;
}

QCPRange HeadHeatmap::valueRange(bool logScale) const {
    WeightSpan span;
    for (std::size_t i = 0; i < cells_.values.size(); ++i) {
        if (cells_.masked[i]) continue;
        const double v = cells_.values[i];
        span.largest = std::max(span.largest, v);
        if (v > 0) span.smallestPositive = std::min(span.smallestPositive, v);
        span.hasZero = span.hasZero || v <= 0;
    }
    return weightColorRange(span, logScale);
}

void HeadHeatmap::fillMap() {
    const int rows = cells_.rows, cols = cells_.cols;
    auto* data =
        new QCPColorMapData(std::max(1, cols), std::max(1, rows), QCPRange(0, 1), QCPRange(0, 1));
    // Cell centres sit on source indices: block b covers [b·f, (b+1)·f) → centre b·f + (f−1)/2.
    const double cx = (cells_.colFactor - 1) / 2.0, cy = (cells_.rowFactor - 1) / 2.0;
    data->setRange(QCPRange(cx, cx + std::max(0, cols - 1) * double(cells_.colFactor)),
                   QCPRange(cy, cy + std::max(0, rows - 1) * double(cells_.rowFactor)));
    if (rows == 0 || cols == 0) {
        data->fill(0);
        data->fillAlpha(0);
    }
    // Log colour scales cannot place 0: clamp (only the drawing, cells_ keeps the exact values).
    const double floor = style_.logScale ? std::max(range_.lower, 1e-12) : -1e300;
    bool anyMasked = false;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            data->setCell(c, r, std::max(cells_.at(r, c), floor));
            anyMasked = anyMasked || cells_.isMasked(r, c);
        }
    if (anyMasked)
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c)
                if (cells_.isMasked(r, c)) data->setAlpha(c, r, 0);  // shows the hatching
    map_->setData(data, false);
    map_->setDataRange(range_);
    mapDirty_ = false;
}

void HeadHeatmap::refresh() {
    // Lay out first so the cell budget and label spacing use this size, not the previous one.
    updateLayoutNow();
    if (cellsDirty_) prepare(cellBudget());
    if (mapDirty_) fillMap();
    const int n = result_ ? int(result_->q_tokens.size()) : 0;
    const int m = result_ ? int(result_->k_tokens.size()) : 0;
    xAxis->setRange(-0.5, std::max(0, m) - 0.5);
    yAxis->setRange(-0.5, std::max(0, n) - 0.5);
    map_->setDataRange(range_);
    title_->setText(titleText());
    rebuildTicks();
    updateSelectionItems();
    replot(rpQueuedRefresh);
}

QString HeadHeatmap::titleText() const {
    if (!result_ || head_ >= int(result_->heads.size())) return tr("Head %1").arg(head_ + 1);
    QString text = tr("Head %1").arg(head_ + 1);
    // The block note goes on the short first line: the statistics line is already the widest.
    if (cells_.rowFactor > 1 || cells_.colFactor > 1)
        text +=
            tr(" · %1 %2×%3")
                .arg(style_.aggregation == attn::Aggregation::Max ? tr("max of") : tr("mean of"))
                .arg(cells_.rowFactor)
                .arg(cells_.colFactor);
    if (head_ < int(result_->stats.size())) {
        const attn::HeadStats& s = result_->stats[std::size_t(head_)];
        text += tr("\nH %1 · max %2 · dist %3")
                    .arg(s.entropy, 0, 'f', 2)
                    .arg(s.max_weight, 0, 'f', 2)
                    .arg(s.mean_distance, 0, 'f', 1);
    }
    return text;
}

void HeadHeatmap::updateSelectionItems() {
    const QColor color =
        style_.colorMap == ColorMapKind::Magma ? QColor(0, 229, 255) : selectionColor(palette());
    const int n = result_ ? int(result_->q_tokens.size()) : 0;
    const int m = result_ ? int(result_->k_tokens.size()) : 0;
    const int q = selection_.query, k = selection_.key;
    rowItem_->setVisible(q >= 0 && q < n);
    cellItem_->setVisible(q >= 0 && q < n && k >= 0 && k < m);
    rowItem_->setPen(QPen(color, 1.5));
    cellItem_->setPen(QPen(color, 2.5));
    if (rowItem_->visible()) {
        rowItem_->topLeft->setCoords(-0.5, q - 0.5);
        rowItem_->bottomRight->setCoords(m - 0.5, q + 0.5);
    }
    if (cellItem_->visible()) {
        cellItem_->topLeft->setCoords(k - 0.5, q - 0.5);
        cellItem_->bottomRight->setCoords(k + 0.5, q + 0.5);
    }
}

QPoint HeadHeatmap::cellAt(const QPoint& pos) const {
    if (!result_) return {-1, -1};
    const QRect r = axisRect()->rect();
    const int n = int(result_->q_tokens.size()), m = int(result_->k_tokens.size());
    const int k = int(std::lround(xAxis->pixelToCoord(pos.x())));
    const int q = int(std::lround(yAxis->pixelToCoord(pos.y())));
    const bool inRows = pos.y() >= r.top() && pos.y() <= r.bottom() && q >= 0 && q < n;
    const bool inCols = pos.x() >= r.left() && pos.x() <= r.right() && k >= 0 && k < m;
    if (inRows && inCols) return {k, q};
    if (inRows && pos.x() < r.left()) return {-1, q};    // a row (query) label
    if (inCols && pos.y() > r.bottom()) return {k, -1};  // a column (key) label
    return {-1, -1};
}

void HeadHeatmap::resizeEvent(QResizeEvent* event) {
    // Not QCustomPlot::resizeEvent: it replots, and refresh() below replots anyway.
    QWidget::resizeEvent(event);
    setViewport(rect());
    const QSize b = cellBudget();
    if (result_ && !result_->heads.empty() && head_ < int(result_->heads.size())) {
        const auto& w = result_->heads[std::size_t(head_)].weights;
        if (attn::blockFactor(w.rows(), b.height()) != cells_.rowFactor ||
            attn::blockFactor(w.cols(), b.width()) != cells_.colFactor)
            cellsDirty_ = true;
    }
    refresh();
}

void HeadHeatmap::mouseMoveEvent(QMouseEvent* event) {
    QCustomPlot::mouseMoveEvent(event);
    const QPoint cell = cellAt(event->pos());
    const bool inCell = cell.x() >= 0 && cell.y() >= 0;
    Q_EMIT cellHovered(head_, inCell ? cell.y() : -1, inCell ? cell.x() : -1);
    const QString text = toolTipAt(event->pos());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

bool HeadHeatmap::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        // The resting mouse asks for a tooltip: answer with what is under it, never letting
        // the request travel up to the grid's generic help while a cell is hovered.
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty()) return QCustomPlot::event(event);
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QCustomPlot::event(event);
}

void HeadHeatmap::leaveEvent(QEvent* event) {
    QCustomPlot::leaveEvent(event);
    Q_EMIT cellHovered(head_, -1, -1);
}

void HeadHeatmap::mousePressEvent(QMouseEvent* event) {
    QCustomPlot::mousePressEvent(event);
    if (event->button() != Qt::LeftButton) return;
    const QPoint cell = cellAt(event->pos());
    if (cell.x() >= 0 || cell.y() >= 0) Q_EMIT cellClicked(head_, cell.y(), cell.x());
}

void HeadHeatmap::mouseDoubleClickEvent(QMouseEvent* event) {
    QCustomPlot::mouseDoubleClickEvent(event);
    if (event->button() == Qt::LeftButton) Q_EMIT headDoubleClicked(head_);
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
