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
using namespace view_keys;

PlaygroundWidget* playgroundOf(const MainWindow& window) {
    for (int i = 0; i < window.tabs()->count(); ++i)
        if (auto* p = qobject_cast<PlaygroundWidget*>(window.tabs()->widget(i))) return p;
    return nullptr;
}

QString key(const char* k) {
    return QString::fromLatin1(k);
}

QJsonObject displayJson(const HeatmapStyle& style) {
    return {{key(kColorMap), colorMapId(style.colorMap)},
            {key(kLogScale), style.logScale},
            {key(kSharedRange), style.sharedRange},
            {key(kBlocks), style.aggregation == attn::Aggregation::Mean ? QStringLiteral("mean")
                                                                        : QStringLiteral("max")}};
}

HeatmapStyle displayFromJson(const QJsonObject& o, HeatmapStyle style) {
    if (o.value(key(kColorMap)).isString())
        style.colorMap = colorMapFromId(o.value(key(kColorMap)).toString());
    if (o.value(key(kLogScale)).isBool()) style.logScale = o.value(key(kLogScale)).toBool();
    if (o.value(key(kSharedRange)).isBool())
        style.sharedRange = o.value(key(kSharedRange)).toBool();
    if (o.value(key(kBlocks)).isString())
        style.aggregation = o.value(key(kBlocks)).toString() == QLatin1StringView("mean")
                                ? attn::Aggregation::Mean
                                : attn::Aggregation::Max;
    return style;
}

/// The tab key of a 0.1 session's "tab", which held the tab's English title.
QString tabFromLegacyTitle(const QString& title) {
    static const std::pair<const char*, const char*> titles[] = {{"Heads", kTabHeads},
                                                                 {"Playground", kTabPlayground},
                                                                 {"Theory", kTabTheory},
                                                                 {"Views", kTabViews},
                                                                 {"Model", kTabModel}};
    for (const auto& [t, k] : titles)
        if (title == QLatin1StringView(t)) return key(k);
    return {};
}
}  // namespace

QJsonObject captureViewState(const MainWindow& window) {
    const ViewState* view = ViewState::of(window.scene());
    const Selection& s = window.scene()->selection();
    QJsonObject state;
    state[key(kOpenTab)] = view->openTab();
    state[key(kSelection)] = QJsonObject{{QStringLiteral("query"), s.query},
                                         {QStringLiteral("key"), s.key},
                                         {QStringLiteral("head"), s.head}};
    state[key(kFocusedHead)] = view->focusedHead();
    if (PlaygroundWidget* p = playgroundOf(window))
        state[key(kPlayground)] = playgroundToJson(p->state());
    state[key(kDisplay)] = displayJson(view->style());
    QJsonObject lenses;
    for (auto it = view->allLensSettings().begin(); it != view->allLensSettings().end(); ++it)
        lenses[it.key()] = it.value();
    state[key(kLensSettings)] = lenses;
    return state;
}

void restoreViewState(MainWindow& window, const QJsonObject& state) {
    ViewState* view = ViewState::of(window.scene());
    const QJsonObject sel = state.value(key(kSelection)).toObject();
    if (!sel.isEmpty()) {
        Selection s;
        s.query = sel.value(QStringLiteral("query")).toInt(-1);
        s.key = sel.value(QStringLiteral("key")).toInt(-1);
        s.head = std::max(0, sel.value(QStringLiteral("head")).toInt(0));
        window.scene()->setSelection(s);
    }
    if (state.contains(key(kFocusedHead)))
        view->setFocusedHead(state.value(key(kFocusedHead)).toInt(-1));
    if (PlaygroundWidget* p = playgroundOf(window); p && state.value(key(kPlayground)).isObject()) {
        attn::PlaygroundState ps = p->state();
        if (playgroundFromJson(state.value(key(kPlayground)).toObject(), &ps)) p->setState(ps);
    }
    if (state.value(key(kDisplay)).isObject())
        view->setStyle(displayFromJson(state.value(key(kDisplay)).toObject(), view->style()));
    const QJsonObject lenses = state.value(key(kLensSettings)).toObject();
    for (auto it = lenses.begin(); it != lenses.end(); ++it)
        if (it.value().isObject()) view->setLensSettings(it.key(), it.value().toObject());
    // A 0.1 session keyed each lens's controls by their labels: only the lens knows those.
    const QJsonObject legacy = state.value(key(kLegacyLenses)).toObject();
    for (LensPanel* lens : window.tabs()->findChildren<LensPanel*>())
        if (legacy.value(lens->lensName()).isObject())
            lens->setLegacySettings(legacy.value(lens->lensName()).toObject());
    const QString tab = state.contains(key(kOpenTab))
                            ? state.value(key(kOpenTab)).toString()
                            : tabFromLegacyTitle(state.value(key(kLegacyTab)).toString());
    if (!tab.isEmpty()) view->setOpenTab(tab);
}

}  // namespace fileio
