// AttnScope — the app's part of a session: the view state (model/view_state.hpp), the
// selection and the playground, under constant keys. GPL-3.0-or-later.
#include "io/session_state.hpp"

#include <QTabWidget>

#include "io/playground_json.hpp"
#include "lenses/lens_panel.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "model/view_state.hpp"
#include "playground/playground_widget.hpp"
#include "views/color_maps.hpp"

namespace fileio {
namespace {
PlaygroundWidget* playgroundOf(const MainWindow& window) {
    for (int i = 0; i < window.tabs()->count(); ++i)
        if (auto* p = qobject_cast<PlaygroundWidget*>(window.tabs()->widget(i))) return p;
    return nullptr;
}

/// A view_keys constant as a JSON key.
QString jsonKey(const char* k) {
    return QString::fromLatin1(k);
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
    if (PlaygroundWidget* p = playgroundOf(window))
        state[jsonKey(view_keys::kPlayground)] = playgroundToJson(p->state());
    state[jsonKey(view_keys::kDisplay)] = displayJson(view->style());
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
    if (PlaygroundWidget* p = playgroundOf(window);
        p && state.value(jsonKey(view_keys::kPlayground)).isObject()) {
        attn::PlaygroundState ps = p->state();
        if (playgroundFromJson(state.value(jsonKey(view_keys::kPlayground)).toObject(), &ps))
            p->setState(ps);
    }
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
