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

/// One row per token: x its position, y its id, x_label its text.
void addTokens(const QString& plot, const QString& name, const std::vector<std::int32_t>& ids,
               const QStringList& tokens, PlotNumbers* n) {
    Series s;
    s.plot = plot;
    s.name = name;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        s.x.push_back(double(i));
        s.y.push_back(double(ids[i]));
        s.xLabels << tokens.value(int(i));
    }
    if (!s.x.empty()) n->series.push_back(std::move(s));
}

/// Named values (y at x = 0, 1, …, each labelled).
void addValues(const QString& plot, const QString& name,
               const std::vector<std::pair<QString, double>>& values, PlotNumbers* n) {
    Series s;
    s.plot = plot;
    s.name = name;
    for (const auto& [label, value] : values) {
        s.x.push_back(double(s.x.size()));
        s.y.push_back(value);
        s.xLabels << label;
    }
    n->series.push_back(std::move(s));
}

/// A map whose rows and columns are tokens or stream places: labelled with them.
void addMap(const CellMap* map, const QString& name, PlotNumbers* n) {
    if (map->values().size() == 0) return;
    n->series.push_back(
        matrixSeries(map->title(), name, map->values(), map->rowLabels(), map->columnLabels()));
}

/// A layers × heads map: x and y are the head and the layer (from 0, as every exported
/// number); the figure's "1", "2", … are no labels of their own.
void addHeadMap(const CellMap* map, const QString& name, PlotNumbers* n) {
    if (map->values().size() == 0) return;
    n->series.push_back(matrixSeries(map->title(), name, map->values(), {}, {}));
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
        addTokens(QObject::tr("inputs"), QObject::tr("prompt"), lens->tokenIds(), lens->tokens(),
                  numbers);
        return true;
    }
    if (auto* a = qobject_cast<AttributionView*>(view)) {
        addHeadMap(a->map(), QObject::tr("head contribution to the logit"), numbers);
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
        if (a->attribution().heads.size() == 0) return true;
        addTokens(QObject::tr("inputs"), QObject::tr("prompt"), a->tokenIds(), a->tokens(),
                  numbers);
        addValues(QObject::tr("inputs"), QObject::tr("attributed token"),
                  {{a->tokenText(), double(a->attribution().token)}}, numbers);
        addValues(QObject::tr("inputs"), QObject::tr("logit"),
                  {{QObject::tr("the run's"), a->attribution().logit},
                   {QObject::tr("the parts' sum"), a->attribution().total()}},
                  numbers);
        return true;
    }
    if (auto* p = qobject_cast<PatchingView*>(view)) {
        addHeadMap(p->headMap(), QObject::tr("fraction restored"), numbers);
        addMap(p->residMap(), QObject::tr("fraction restored"), numbers);
        if (p->result().heads.size() == 0) return true;
        // What the fractions are of: the prompts, the answers and the logit differences.
        const attn::interv::PatchSpec& spec = p->patchSpec();
        const attn::interv::PatchResult& r = p->result();
        const QString inputs = QObject::tr("inputs");
        addTokens(inputs, QObject::tr("clean prompt"), spec.clean, p->inputs().tokens, numbers);
        addTokens(inputs, QObject::tr("corrupted prompt"), spec.corrupt, p->inputs().corruptTokens,
                  numbers);
        addValues(inputs, QObject::tr("answer token"),
                  {{p->inputs().answerText, double(spec.answer)}}, numbers);
        addValues(inputs, QObject::tr("wrong token"), {{p->inputs().wrongText, double(spec.wrong)}},
                  numbers);
        addValues(inputs, QObject::tr("logit difference (answer − wrong)"),
                  {{QObject::tr("clean"), r.clean_diff},
                   {QObject::tr("corrupted"), r.corrupt_diff},
                   {QObject::tr("clean − corrupted"), r.clean_diff - r.corrupt_diff}},
                  numbers);
        addValues(inputs, QObject::tr("logit spread (standard deviation)"),
                  {{QObject::tr("clean run"), r.logit_scale}}, numbers);
        addValues(inputs, QObject::tr("unstable (1: clean − corrupted is too small)"),
                  {{QObject::tr("threshold %1 × spread").arg(attn::interv::kUnstableSpanFraction),
                    r.unstable() ? 1.0 : 0.0}},
                  numbers);
        return true;
    }
    return false;
}

}  // namespace exporting
