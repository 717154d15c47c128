// AttnScope — the numbers of the Interventions tab's maps and bars. GPL-3.0-or-later.
#include "export/intervention_numbers.hpp"

#include <QTabWidget>

#include "views/attribution_view.hpp"
#include "views/cell_map.hpp"
#include "views/interventions_tab.hpp"
#include "views/logit_lens_view.hpp"
#include "views/patching_view.hpp"

namespace exporting {
namespace {

Series matrixSeries(const QString& plot, const QString& name, const attn::Matrix& m,
                    const QStringList& rows, const QStringList& columns) {
    Series s;
    s.plot = plot;
    s.name = name;
    for (attn::Index r = 0; r < m.rows(); ++r)
        for (attn::Index c = 0; c < m.cols(); ++c) {
            s.x.push_back(double(c));
            s.y.push_back(double(r));
            s.z.push_back(double(m(r, c)));
            s.xLabels << columns.value(int(c));
            s.yLabels << rows.value(int(r));
        }
    return s;
}

void addMap(const CellMap* map, const QString& name, PlotNumbers* n) {
    if (map->values().size() == 0) return;
    n->series.push_back(
        matrixSeries(map->title(), name, map->values(), map->rowLabels(), map->columnLabels()));
}

}  // namespace

bool interventionNumbersOfView(QWidget* view, PlotNumbers* numbers) {
    if (auto* tab = qobject_cast<InterventionsTab*>(view)) view = tab->pages()->currentWidget();
    *numbers = {};
    if (auto* lens = qobject_cast<LogitLensView*>(view)) {
        addMap(lens->map(), QObject::tr("top token probability"), numbers);
        const attn::interv::LensTable& t = lens->table();
        attn::Matrix ids(t.layers, t.positions);
        for (attn::Index r = 0; r < t.layers; ++r)
            for (attn::Index c = 0; c < t.positions; ++c)
                ids(r, c) = float(t.at(r, c).ids[0]);
        if (ids.size() > 0)
            numbers->series.push_back(
                matrixSeries(lens->map()->title(), QObject::tr("top token id"), ids,
                             lens->map()->rowLabels(), lens->map()->columnLabels()));
        return true;
    }
    if (auto* a = qobject_cast<AttributionView*>(view)) {
        addMap(a->map(), QObject::tr("head contribution to the logit"), numbers);
        const BarList* bars = a->bars();
        Series s;
        s.plot = bars->title();
        s.name = QObject::tr("contribution to the logit");
        for (std::size_t i = 0; i < bars->values().size(); ++i) {
            s.x.push_back(double(i));
            s.y.push_back(bars->values()[i]);
            s.xLabels << bars->labels().value(int(i));
        }
        if (!s.x.empty()) numbers->series.push_back(std::move(s));
        return true;
    }
    if (auto* p = qobject_cast<PatchingView*>(view)) {
        addMap(p->headMap(), QObject::tr("fraction restored"), numbers);
        addMap(p->residMap(), QObject::tr("fraction restored"), numbers);
        return true;
    }
    return false;
}

}  // namespace exporting
