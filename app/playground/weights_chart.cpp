// AttnScope — the playground's bar chart of the selected query's weights. GPL-3.0-or-later.
#include "playground/weights_chart.hpp"

#include <algorithm>
#include <numeric>

#include "views/plot_theme.hpp"

WeightsChart::WeightsChart(PlaygroundModel* model, QWidget* parent)
    : QCustomPlot(parent), model_(model) {
    setObjectName(QStringLiteral("playgroundWeightsChart"));
    setMinimumSize(220, 160);
    plotLayout()->insertRow(0);
    title_ = new QCPTextElement(this, QString(), QFont(font().family(), 9, QFont::Bold));
    plotLayout()->addElement(0, 0, title_);
    bars_ = new QCPBars(xAxis, yAxis);
    bars_->setWidth(0.7);
    sample_ = addGraph();
    sample_->setLineStyle(QCPGraph::lsNone);
    sample_->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssTriangleInverted, Qt::black, Qt::black, 9));
    ticks_.reset(new QCPAxisTickerText);
    xAxis->setTicker(ticks_);
    xAxis->grid()->setVisible(false);
    yAxis->setLabel(QStringLiteral("\u03b1"));
    yAxis->setRange(0, 1.08);
    applyPlotTheme(this, palette());
    connect(model_, &PlaygroundModel::changed, this, &WeightsChart::refresh);
    refresh();
}

void WeightsChart::refresh() {
    const auto& s = model_->state();
    const auto& r = model_->result();
    const int sel = s.selected_query;
    const int nk = static_cast<int>(s.keys.size());
    const bool have = sel >= 0 && sel < r.head.weights.rows() && r.head.weights.cols() == nk;
    order_.resize(static_cast<std::size_t>(nk));
    std::iota(order_.begin(), order_.end(), 0);
    if (have && s.sorted_bars)
        std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
            return r.head.weights(sel, a) > r.head.weights(sel, b);
        });
    QVector<double> pos, val;
    ticks_->clear();
    // With many keys, label every n-th bar only so the tick labels never overlap.
    const int every = std::max(1, nk / 16);
    for (int p = 0; p < nk; ++p) {
        const int j = order_[static_cast<std::size_t>(p)];
        pos.push_back(p + 1);
        val.push_back(have ? r.head.weights(sel, j) : 0.0);
        if (p % every == 0 || s.sorted_bars)
            ticks_->addTick(p + 1,
                            (s.is_masked(static_cast<std::size_t>(j)) ? QStringLiteral("\u00d7k")
                                                                      : QStringLiteral("k")) +
                                QString::number(j + 1));
    }
    bars_->setData(pos, val, true);
    const QColor c = PlaygroundModel::queryColor(sel);
    QColor fill = c;
    fill.setAlpha(170);
    bars_->setPen(QPen(c.darker(130)));
    bars_->setBrush(fill);
    QVector<double> sx, sy;
    if (have && s.hard_sample && static_cast<std::size_t>(sel) < r.sampled.size() &&
        r.sampled[static_cast<std::size_t>(sel)] >= 0) {
        const int j = r.sampled[static_cast<std::size_t>(sel)];
        const auto it = std::find(order_.begin(), order_.end(), j);
        sx.push_back(static_cast<double>(it - order_.begin()) + 1);
        sy.push_back(r.head.weights(sel, j) + 0.06);
    }
    sample_->setData(sx, sy);
    xAxis->setRange(0.3, nk + 0.7);
    QString t = have ? tr("Weights \u03b1 of q%1 (%2)")
                           .arg(sel + 1)
                           .arg(s.sorted_bars ? tr("sorted") : tr("key order"))
                     : tr("Weights \u03b1 (no query)");
    if (have && static_cast<std::size_t>(sel) < r.empty.size() &&
        r.empty[static_cast<std::size_t>(sel)])
        t = tr("q%1 sees no key: every weight is 0").arg(sel + 1);
    title_->setText(t);
    replot(QCustomPlot::rpQueuedReplot);
}

void WeightsChart::changeEvent(QEvent* event) {
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPlotTheme(this, palette());
        replot(QCustomPlot::rpQueuedReplot);
    }
}
