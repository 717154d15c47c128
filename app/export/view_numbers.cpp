// AttnScope — the numbers a plot-based view draws. GPL-3.0-or-later.
#include "export/view_numbers.hpp"

#include <QTabWidget>

#include "export/batch_numbers.hpp"
#include "export/influence_numbers.hpp"
#include "export/intervention_numbers.hpp"
#include "lenses/lens_panel.hpp"
#include "model/playground_model.hpp"
#include "playground/playground_widget.hpp"
#include "views/qcp.hpp"
#include "views/token_labels.hpp"

namespace exporting {
namespace {

/// The label of position v of an axis of text (tokens in full, categories), "" elsewhere.
QString axisText(const QCPAxis* axis, double v) {
    return plainLabel(axis, v);
}

QString plotTitle(QCustomPlot* plot) {
    const auto* t = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
    return t ? t->text() : QString();
}

/// Key/value pairs of a graph or bar chart (their data containers share an interface).
template <class Container>
Series pointsOf(const Container& data, const QCPAbstractPlottable* p) {
    Series s;
    s.name = p->name();
    bool labelled = false;
    for (auto it = data.constBegin(); it != data.constEnd(); ++it) {
        s.x.push_back(it->key);
        s.y.push_back(it->value);
        s.xLabels << axisText(p->keyAxis(), it->key);
        labelled = labelled || !s.xLabels.back().isEmpty();
    }
    if (!labelled) s.xLabels.clear();
    return s;
}

Series cellsOf(QCPColorMap* map) {
    Series s;
    s.name = map->name();
    if (s.name.isEmpty() && map->colorScale()) s.name = map->colorScale()->axis()->label();
    QCPColorMapData* d = map->data();
    bool labelled = false;
    // Row by row (C order of the matrix shown: rows are the value axis).
    for (int r = 0; r < d->valueSize(); ++r)
        for (int c = 0; c < d->keySize(); ++c) {
            double x = 0, y = 0;
            d->cellToCoord(c, r, &x, &y);
            s.x.push_back(x);
            s.y.push_back(y);
            s.z.push_back(d->cell(c, r));
            s.xLabels << axisText(map->keyAxis(), x);
            s.yLabels << axisText(map->valueAxis(), y);
            labelled = labelled || !s.xLabels.back().isEmpty() || !s.yLabels.back().isEmpty();
        }
    if (!labelled) {
        s.xLabels.clear();
        s.yLabels.clear();
    }
    return s;
}

Series points(const QString& plot, const QString& name, const QString& prefix,
              const std::vector<Eigen::Vector2d>& pts) {
    Series s;
    s.plot = plot;
    s.name = name;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        s.x.push_back(pts[i].x());
        s.y.push_back(pts[i].y());
        s.xLabels << prefix + QString::number(i + 1);
    }
    return s;
}

}  // namespace

PlotNumbers numbersOfPlots(const QList<QCustomPlot*>& plots) {
    PlotNumbers n;
    for (QCustomPlot* plot : plots) {
        const QString title = plotTitle(plot);
        for (int i = 0; i < plot->plottableCount(); ++i) {
            QCPAbstractPlottable* p = plot->plottable(i);
            if (!p->visible()) continue;
            Series s;
            if (auto* g = qobject_cast<QCPGraph*>(p))
                s = pointsOf(*g->data(), g);
            else if (auto* b = qobject_cast<QCPBars*>(p))
                s = pointsOf(*b->data(), b);
            else if (auto* m = qobject_cast<QCPColorMap*>(p))
                s = cellsOf(m);
            if (s.x.empty()) continue;
            s.plot = title;
            n.series.push_back(std::move(s));
        }
    }
    return n;
}

PlotNumbers numbersOfPlayground(const PlaygroundWidget& playground) {
    const attn::PlaygroundState& st = playground.model()->state();
    const attn::PlaygroundResult& r = playground.model()->result();
    const QString qk = QObject::tr("query/key plane"), vp = QObject::tr("value plane");
    PlotNumbers n;
    n.series.push_back(points(qk, QObject::tr("queries"), QStringLiteral("q"), st.queries));
    n.series.push_back(points(qk, QObject::tr("keys"), QStringLiteral("k"), st.keys));
    n.series.push_back(points(vp, QObject::tr("values"), QStringLiteral("v"), st.values));
    n.series.push_back(points(vp, QObject::tr("outputs"), QStringLiteral("o"), r.outputs));
    Series w;
    w.plot = QObject::tr("weights");
    w.name = QObject::tr("weights α (query rows, key columns)");
    const attn::Matrix& a = r.head.weights;
    for (attn::Index i = 0; i < a.rows(); ++i)
        for (attn::Index j = 0; j < a.cols(); ++j) {
            w.x.push_back(double(j));
            w.y.push_back(double(i));
            w.z.push_back(double(a(i, j)));
            w.xLabels << QStringLiteral("k%1").arg(j + 1);
            w.yLabels << QStringLiteral("q%1").arg(i + 1);
        }
    n.series.push_back(std::move(w));
    std::erase_if(n.series, [](const Series& s) { return s.x.empty(); });
    return n;
}

bool plotNumbersOfView(QWidget* view, PlotNumbers* numbers) {
    if (interventionNumbersOfView(view, numbers)) return true;
    if (batchNumbersOfView(view, numbers)) return true;
    if (influenceNumbersOfView(view, numbers)) return true;
    // The Theory tab holds a tab per lens: the numbers are those of the lens on show.
    while (auto* tabs = qobject_cast<QTabWidget*>(view))
        view = tabs->currentWidget();
    if (auto* lens = qobject_cast<LensPanel*>(view)) {
        *numbers = numbersOfPlots(lens->currentPlots());
        return true;
    }
    if (auto* playground = qobject_cast<PlaygroundWidget*>(view)) {
        *numbers = numbersOfPlayground(*playground);
        return true;
    }
    return false;
}

}  // namespace exporting
