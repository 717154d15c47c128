// AttnScope — a heatmap on a lens plot. GPL-3.0-or-later.
#include "lenses/lens_heatmap.hpp"

#include "views/color_maps.hpp"
#include "views/qcp.hpp"
#include "views/token_labels.hpp"

LensHeatmap LensHeatmap::create(QCustomPlot* plot, const QString& label, bool diverging) {
    LensHeatmap h;
    h.map = new QCPColorMap(plot->xAxis, plot->yAxis);
    h.scale = new QCPColorScale(plot);
    plot->plotLayout()->addElement(1, 1, h.scale);
    h.scale->setType(QCPAxis::atRight);
    h.scale->axis()->setLabel(label);
    h.scale->axis()->setLabelColor(plot->xAxis->labelColor());
    h.scale->axis()->setTickLabelColor(plot->xAxis->tickLabelColor());
    h.scale->axis()->setBasePen(plot->xAxis->basePen());
    h.scale->axis()->setTickPen(plot->xAxis->tickPen());
    h.scale->axis()->setSubTickPen(plot->xAxis->subTickPen());
    h.scale->setBarWidth(10);
    h.map->setColorScale(h.scale);
    if (diverging) {
        QCPColorGradient g;
        g.setColorStopAt(0, QColor(33, 102, 172));
        g.setColorStopAt(0.5, QColor(247, 247, 247));
        g.setColorStopAt(1, QColor(178, 24, 43));
        h.map->setGradient(g);
    } else {
        h.map->setGradient(makeGradient(ColorMapKind::Viridis));
    }
    h.map->setInterpolate(false);
    plot->yAxis->setRangeReversed(true);
    // Integer ticks: cells are tokens.
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
        QSharedPointer<QCPAxisTickerFixed> t(new QCPAxisTickerFixed);
        t->setTickStep(1);
        t->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        axis->setTicker(t);
    }
    plot->xAxis->grid()->setVisible(false);
    plot->yAxis->grid()->setVisible(false);
    plot->legend->setVisible(false);
    // Keep the colour scale the same height as the matrix.
    auto* group = new QCPMarginGroup(plot);
    plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    h.scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    return h;
}

void LensHeatmap::setMatrix(const attn::MatrixD& M, double lo, double hi) {
    const int rows = int(M.rows()), cols = int(M.cols());
    map->data()->setSize(cols, rows);
    map->data()->setRange(QCPRange(0, cols - 1), QCPRange(0, rows - 1));
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            map->data()->setCell(j, i, M(i, j));
    map->setDataRange(QCPRange(lo, hi > lo ? hi : lo + 1));
    map->keyAxis()->setRange(-0.5, cols - 0.5);
    map->valueAxis()->setRange(-0.5, rows - 0.5);
}

void LensHeatmap::setTokens(const std::vector<std::string>& cols,
                            const std::vector<std::string>& rows) {
    const auto apply = [](QCPAxis* axis, const std::vector<std::string>& tokens) {
        setPlainLabels(axis, tokens);  // an export's labels: every token, in full
        if (tokens.empty()) {
            QSharedPointer<QCPAxisTickerFixed> t(new QCPAxisTickerFixed);
            t->setTickStep(1);
            t->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
            axis->setTicker(t);
            return;
        }
        QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
        // Thin out long sentences so labels never overlap (every k-th token).
        const std::size_t step = std::max<std::size_t>(1, tokens.size() / 16 + 1);
        for (std::size_t i = 0; i < tokens.size(); i += step)
            t->addTick(double(i), elideToken(tokens[i], 9));
        axis->setTicker(t);
        axis->setSubTicks(false);
    };
    apply(map->keyAxis(), cols);
    apply(map->valueAxis(), rows);
    map->keyAxis()->setTickLabelRotation(cols.empty() ? 0 : -50);
}
