// AttnScope — the app's part of a session: views, selection and playground state.
// GPL-3.0-or-later.
#include "io/session_state.hpp"

#include <QTabWidget>

#include "io/playground_json.hpp"
#include "lenses/lens_panel.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "playground/playground_widget.hpp"
#include "views/heatmap_grid.hpp"
#include "widgets/controls_dock.hpp"

namespace fileio {
namespace {
PlaygroundWidget* playgroundOf(const MainWindow& window) {
    for (int i = 0; i < window.tabs()->count(); ++i)
        if (auto* p = qobject_cast<PlaygroundWidget*>(window.tabs()->widget(i))) return p;
    return nullptr;
}

QJsonObject displayJson(const HeatmapStyle& style) {
    return {{QStringLiteral("colormap"), colorMapId(style.colorMap)},
            {QStringLiteral("log_scale"), style.logScale},
            {QStringLiteral("shared_range"), style.sharedRange},
            {QStringLiteral("blocks"), style.aggregation == attn::Aggregation::Mean
                                           ? QStringLiteral("mean")
                                           : QStringLiteral("max")}};
}

HeatmapStyle displayFromJson(const QJsonObject& o, HeatmapStyle style) {
    if (o.value(QStringLiteral("colormap")).isString())
        style.colorMap = colorMapFromId(o.value(QStringLiteral("colormap")).toString());
    if (o.value(QStringLiteral("log_scale")).isBool())
        style.logScale = o.value(QStringLiteral("log_scale")).toBool();
    if (o.value(QStringLiteral("shared_range")).isBool())
        style.sharedRange = o.value(QStringLiteral("shared_range")).toBool();
    if (o.value(QStringLiteral("blocks")).isString())
        style.aggregation =
            o.value(QStringLiteral("blocks")).toString() == QLatin1StringView("mean")
                ? attn::Aggregation::Mean
                : attn::Aggregation::Max;
    return style;
}

QList<LensPanel*> lensesOf(const MainWindow& window) {
    return window.tabs()->findChildren<LensPanel*>();
}
}  // namespace

QJsonObject captureViewState(const MainWindow& window) {
    const Selection& s = window.scene()->selection();
    QJsonObject state;
    state[QStringLiteral("tab")] = window.tabs()->tabText(window.tabs()->currentIndex());
    state[QStringLiteral("selection")] = QJsonObject{{QStringLiteral("query"), s.query},
                                                     {QStringLiteral("key"), s.key},
                                                     {QStringLiteral("head"), s.head}};
    state[QStringLiteral("focused_head")] = window.heatmapGrid()->focusedHead();
    if (PlaygroundWidget* p = playgroundOf(window))
        state[QStringLiteral("playground")] = playgroundToJson(p->state());
    state[QStringLiteral("display")] = displayJson(window.controlsDock()->style());
    QJsonObject lenses;
    for (LensPanel* lens : lensesOf(window))
        lenses[lens->lensName()] = lens->settings();
    state[QStringLiteral("lenses")] = lenses;
    return state;
}

void restoreViewState(MainWindow& window, const QJsonObject& state) {
    const QJsonObject sel = state.value(QStringLiteral("selection")).toObject();
    if (!sel.isEmpty()) {
        Selection s;
        s.query = sel.value(QStringLiteral("query")).toInt(-1);
        s.key = sel.value(QStringLiteral("key")).toInt(-1);
        s.head = std::max(0, sel.value(QStringLiteral("head")).toInt(0));
        window.scene()->setSelection(s);
    }
    if (state.contains(QStringLiteral("focused_head")))
        window.heatmapGrid()->setFocusedHead(state.value(QStringLiteral("focused_head")).toInt(-1));
    if (PlaygroundWidget* p = playgroundOf(window);
        p && state.value(QStringLiteral("playground")).isObject()) {
        attn::PlaygroundState ps = p->state();
        if (playgroundFromJson(state.value(QStringLiteral("playground")).toObject(), &ps))
            p->setState(ps);
    }
    if (state.value(QStringLiteral("display")).isObject())
        window.controlsDock()->applyStyle(displayFromJson(
            state.value(QStringLiteral("display")).toObject(), window.controlsDock()->style()));
    const QJsonObject lenses = state.value(QStringLiteral("lenses")).toObject();
    for (LensPanel* lens : lensesOf(window))
        if (lenses.value(lens->lensName()).isObject())
            lens->setSettings(lenses.value(lens->lensName()).toObject());
    const QString tab = state.value(QStringLiteral("tab")).toString();
    for (int i = 0; i < window.tabs()->count(); ++i)
        if (window.tabs()->tabText(i) == tab) window.tabs()->setCurrentIndex(i);
}

}  // namespace fileio
