// AttnScope — the app's part of a session: the view state (model/view_state.hpp: style, zoom,
// tabs, the views' options, lenses, the playground) and the selection, under constant keys.
// GPL-3.0-or-later.
#include "io/session_state.hpp"

#include <QJsonArray>
#include <QTabWidget>

#include "io/playground_json.hpp"
#include "lenses/lens_panel.hpp"
#include "main_window.hpp"
#include "model/playground_model.hpp"
#include "model/scene.hpp"
#include "model/view_state.hpp"
#include "views/color_maps.hpp"

namespace fileio {
namespace {
/// A view_keys constant as a JSON key.
QString jsonKey(const char* k) {
    return QString::fromLatin1(k);
}

// The fields of a zoomed head's region: constants.
const QString kHead = QStringLiteral("head"), kN = QStringLiteral("n"), kM = QStringLiteral("m"),
              kRow = QStringLiteral("row"), kRows = QStringLiteral("rows"),
              kCol = QStringLiteral("col"), kCols = QStringLiteral("cols");

QJsonArray zoomJson(const QMap<int, HeatmapViewport>& zooms) {
    QJsonArray out;
    for (auto it = zooms.begin(); it != zooms.end(); ++it) {
        const HeatmapViewport& v = it.value();
        out.append(QJsonObject{{kHead, it.key()},
                               {kN, qint64(v.n)},
                               {kM, qint64(v.m)},
                               {kRow, qint64(v.row)},
                               {kRows, qint64(v.rows)},
                               {kCol, qint64(v.col)},
                               {kCols, qint64(v.cols)}});
    }
    return out;
}

/// The zoomed heads of a session; a region outside its own n × m is left out.
QMap<int, HeatmapViewport> zoomFromJson(const QJsonArray& array) {
    QMap<int, HeatmapViewport> out;
    for (const QJsonValue& value : array) {
        const QJsonObject o = value.toObject();
        HeatmapViewport v;
        v.n = o.value(kN).toInteger(), v.m = o.value(kM).toInteger();
        v.row = o.value(kRow).toInteger(), v.rows = o.value(kRows).toInteger();
        v.col = o.value(kCol).toInteger(), v.cols = o.value(kCols).toInteger();
        const int head = o.value(kHead).toInt(-1);
        if (head >= 0 && v.rows > 0 && v.cols > 0 && v.row >= 0 && v.col >= 0 &&
            v.row + v.rows <= v.n && v.col + v.cols <= v.m)
            out.insert(head, v);
    }
    return out;
}

const std::pair<attn::HeadReduce, const char*> kReduceIds[] = {{attn::HeadReduce::One, "one"},
                                                               {attn::HeadReduce::Mean, "mean"},
                                                               {attn::HeadReduce::Max, "max"}};
const QString kHeads = QStringLiteral("heads"), kReverse = QStringLiteral("reverse");

QJsonObject viewOptionsJson(const ViewOptions& options) {
    QString reduce;
    for (const auto& [r, id] : kReduceIds)
        if (r == options.reduce) reduce = jsonKey(id);
    return {{kHeads, reduce}, {kReverse, options.reverse}};
}

ViewOptions viewOptionsFromJson(const QJsonObject& o) {
    ViewOptions options;
    for (const auto& [r, id] : kReduceIds)
        if (o.value(kHeads).toString() == QLatin1StringView(id)) options.reduce = r;
    options.reverse = o.value(kReverse).toBool(false);
    return options;
}

QJsonObject displayJson(const HeatmapStyle& style) {
    return {{jsonKey(view_keys::kColorMap), colorMapId(style.colorMap)},
            {jsonKey(view_keys::kLogScale), style.logScale},
            {jsonKey(view_keys::kSharedRange), style.sharedRange},
            {jsonKey(view_keys::kBlocks), style.aggregation == attn::Aggregation::Mean
                                              ? QStringLiteral("mean")
                                              : QStringLiteral("max")}};
}

HeatmapStyle displayFromJson(const QJsonObject& o, HeatmapStyle style) {
    if (o.value(jsonKey(view_keys::kColorMap)).isString())
        style.colorMap = colorMapFromId(o.value(jsonKey(view_keys::kColorMap)).toString());
    if (o.value(jsonKey(view_keys::kLogScale)).isBool())
        style.logScale = o.value(jsonKey(view_keys::kLogScale)).toBool();
    if (o.value(jsonKey(view_keys::kSharedRange)).isBool())
        style.sharedRange = o.value(jsonKey(view_keys::kSharedRange)).toBool();
    if (o.value(jsonKey(view_keys::kBlocks)).isString())
        style.aggregation =
            o.value(jsonKey(view_keys::kBlocks)).toString() == QLatin1StringView("mean")
                ? attn::Aggregation::Mean
                : attn::Aggregation::Max;
    return style;
}

/// The tab key of a 0.1 session's "tab", which held the tab's English title.
QString tabFromLegacyTitle(const QString& title) {
    static const std::pair<const char*, const char*> titles[] = {
        {"Heads", view_keys::kTabHeads},
        {"Playground", view_keys::kTabPlayground},
        {"Theory", view_keys::kTabTheory},
        {"Views", view_keys::kTabViews},
        {"Model", view_keys::kTabModel}};
    for (const auto& [t, k] : titles)
        if (title == QLatin1StringView(t)) return jsonKey(k);
    return {};
}
}  // namespace

QJsonObject captureViewState(const MainWindow& window) {
    const ViewState* view = ViewState::of(window.scene());
    const Selection& s = window.scene()->selection();
    QJsonObject state;
    state[jsonKey(view_keys::kOpenTab)] = view->openTab();
    state[jsonKey(view_keys::kSelection)] = QJsonObject{{QStringLiteral("query"), s.query},
                                                        {QStringLiteral("key"), s.key},
                                                        {QStringLiteral("head"), s.head}};
    state[jsonKey(view_keys::kFocusedHead)] = view->focusedHead();
    state[jsonKey(view_keys::kPlayground)] = playgroundToJson(view->playground()->state());
    state[jsonKey(view_keys::kDisplay)] = displayJson(view->style());
    state[jsonKey(view_keys::kZoom)] = zoomJson(view->zooms());
    state[jsonKey(view_keys::kViewOptions)] = viewOptionsJson(view->viewOptions());
    QJsonObject inner;
    for (auto it = view->innerTabs().begin(); it != view->innerTabs().end(); ++it)
        inner[it.key()] = it.value();
    state[jsonKey(view_keys::kInnerTabs)] = inner;
    QJsonObject lenses;
    for (auto it = view->allLensSettings().begin(); it != view->allLensSettings().end(); ++it)
        lenses[it.key()] = it.value();
    state[jsonKey(view_keys::kLensSettings)] = lenses;
    return state;
}

void restoreViewState(MainWindow& window, const QJsonObject& state) {
    ViewState* view = ViewState::of(window.scene());
    const QJsonObject sel = state.value(jsonKey(view_keys::kSelection)).toObject();
    if (!sel.isEmpty()) {
        Selection s;
        s.query = sel.value(QStringLiteral("query")).toInt(-1);
        s.key = sel.value(QStringLiteral("key")).toInt(-1);
        s.head = std::max(0, sel.value(QStringLiteral("head")).toInt(0));
        window.scene()->setSelection(s);
    }
    if (state.contains(jsonKey(view_keys::kFocusedHead)))
        view->setFocusedHead(state.value(jsonKey(view_keys::kFocusedHead)).toInt(-1));
    if (state.value(jsonKey(view_keys::kPlayground)).isObject()) {
        attn::PlaygroundState ps = view->playground()->state();
        if (playgroundFromJson(state.value(jsonKey(view_keys::kPlayground)).toObject(), &ps))
            view->playground()->load(ps);
    }
    // What the session does not zoom shows whole (a session before zoom was kept: every head).
    const QMap<int, HeatmapViewport> zooms =
        zoomFromJson(state.value(jsonKey(view_keys::kZoom)).toArray());
    for (int head : view->zooms().keys())
        if (!zooms.contains(head)) view->setZoom(head, HeatmapViewport{});
    for (auto it = zooms.begin(); it != zooms.end(); ++it)
        view->setZoom(it.key(), it.value());
    view->setViewOptions(
        viewOptionsFromJson(state.value(jsonKey(view_keys::kViewOptions)).toObject()));
    const QJsonObject inner = state.value(jsonKey(view_keys::kInnerTabs)).toObject();
    for (auto it = inner.begin(); it != inner.end(); ++it)
        view->setInnerTab(it.key(), it.value().toString());
    if (state.value(jsonKey(view_keys::kDisplay)).isObject())
        view->setStyle(
            displayFromJson(state.value(jsonKey(view_keys::kDisplay)).toObject(), view->style()));
    const QJsonObject lenses = state.value(jsonKey(view_keys::kLensSettings)).toObject();
    for (auto it = lenses.begin(); it != lenses.end(); ++it)
        if (it.value().isObject()) view->setLensSettings(it.key(), it.value().toObject());
    // A 0.1 session keyed each lens's controls by their labels: only the lens knows those.
    const QJsonObject legacy = state.value(jsonKey(view_keys::kLegacyLenses)).toObject();
    for (LensPanel* lens : window.tabs()->findChildren<LensPanel*>())
        if (legacy.value(lens->lensName()).isObject())
            lens->setLegacySettings(legacy.value(lens->lensName()).toObject());
    const QString tab =
        state.contains(jsonKey(view_keys::kOpenTab))
            ? state.value(jsonKey(view_keys::kOpenTab)).toString()
            : tabFromLegacyTitle(state.value(jsonKey(view_keys::kLegacyTab)).toString());
    if (!tab.isEmpty()) view->setOpenTab(tab);
}

}  // namespace fileio
