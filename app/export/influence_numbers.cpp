// AttnScope — the numbers of the Influence tab's panels. GPL-3.0-or-later.
#include "export/influence_numbers.hpp"

#include "model/influence_model.hpp"
#include "views/cell_map.hpp"
#include "views/influence_strips.hpp"
#include "views/influence_text.hpp"
#include "views/influence_view.hpp"

namespace exporting {
namespace {

InfluenceView* influenceViewOf(QWidget* w) {
    for (; w; w = w->parentWidget())
        if (auto* v = qobject_cast<InfluenceView*>(w)) return v;
    return nullptr;
}

Series mapSeries(const CellMap* map, const QString& name, bool labelled) {
    Series s;
    s.plot = map->title();
    s.name = name;
    const attn::Matrix& m = map->values();
    for (attn::Index r = 0; r < m.rows(); ++r)
        for (attn::Index c = 0; c < m.cols(); ++c) {
            s.x.push_back(double(c));
            s.y.push_back(double(r));
            s.z.push_back(double(m(r, c)));
            s.xLabels << (labelled ? map->columnLabels().value(int(c)) : QString());
            s.yLabels << (labelled ? map->rowLabels().value(int(r)) : QString());
        }
    return s;
}

void addStrips(const InfluenceView& v, const influence::Result& r, PlotNumbers* n) {
    const InfluenceStrips* strips = v.strips();
    for (const InfluenceStrips::Row& row : strips->rows()) {
        if (row.values.empty()) continue;  // a refused method has no numbers
        Series s;
        s.plot = strips->title();
        s.name = row.label;
        for (std::size_t i = 0; i < row.values.size(); ++i) {
            s.x.push_back(double(i));
            s.y.push_back(row.values[i]);
            s.xLabels << r.tokens.value(int(i));
        }
        n->series.push_back(std::move(s));
    }
    if (v.picker()->values().size() > 0)
        n->series.push_back(mapSeries(v.picker(), QObject::tr("top-5 probability"), true));
    Series target;
    target.plot = QObject::tr("target");
    target.name = QObject::tr("position, token id, logit");
    target.x = {0, 1, 2};
    target.y = {double(r.position), double(r.target), r.logit};
    target.xLabels << QObject::tr("position") << r.targetText << QObject::tr("logit");
    n->series.push_back(std::move(target));
    if (const influence::Strip* ig = influence::stripOf(r, QStringLiteral("integrated_gradients"));
        ig && !ig->values.empty()) {
        Series delta;
        delta.plot = QObject::tr("target");
        delta.name = QObject::tr("ig_delta (steps)");
        delta.x = {double(r.steps)};
        delta.y = {r.igDelta};
        n->series.push_back(std::move(delta));
    }
}

void addFaithfulness(const influence::Faithfulness& f, const QString& plot, PlotNumbers* n) {
    const auto curve = [&](const QString& name, const std::vector<double>& y) {
        Series s;
        s.plot = plot;
        s.name = name;
        for (std::size_t k = 0; k < y.size(); ++k) {
            s.x.push_back(double(k));
            s.y.push_back(y[k]);
        }
        n->series.push_back(std::move(s));
    };
    for (int i = 0; i < f.keys.size(); ++i)
        curve(influence_text::name(f.keys[i]), f.curves[std::size_t(i)]);
    std::vector<double> low, high;
    for (std::size_t k = 0; k < f.randomMean.size(); ++k) {
        low.push_back(f.randomMean[k] - f.randomSpread[k]);
        high.push_back(f.randomMean[k] + f.randomSpread[k]);
    }
    curve(QObject::tr("random order mean"), f.randomMean);
    curve(QObject::tr("random order mean − s.d."), low);
    curve(QObject::tr("random order mean + s.d."), high);
}

}  // namespace

bool influenceNumbersOfView(QWidget* view, PlotNumbers* numbers) {
    InfluenceView* v = influenceViewOf(view);
    if (!v) return false;
    *numbers = {};
    const influence::Result* r = v->model()->result();
    if (!r) return true;
    const QString key = InfluenceView::panelKey(view);
    const bool all = key.isEmpty();
    if (all || key == QLatin1StringView("strips")) addStrips(*v, *r, numbers);
    if ((all || key == QLatin1StringView("heads")) && v->headMap()->values().size() > 0) {
        numbers->series.push_back(
            mapSeries(v->headMap(), QObject::tr("attention × gradient per head"), false));
        numbers->series.push_back(
            mapSeries(v->pairMap(), QObject::tr("attention × gradient"), true));
    }
    if (all || key == QLatin1StringView("faithfulness"))
        if (const influence::Faithfulness* f = v->model()->faithfulness())
            addFaithfulness(*f, QObject::tr("faithfulness"), numbers);
    if ((all || key == QLatin1StringView("agreement")) && v->agreementMap()->values().size() > 0)
        numbers->series.push_back(
            mapSeries(v->agreementMap(), QObject::tr("Kendall's tau-b"), true));
    return true;
}

}  // namespace exporting
