// AttnScope — the app's part of a session: views, selection and playground state.
// GPL-3.0-or-later.
#include "io/session_state.hpp"

#include <QTabWidget>

#include "io/playground_json.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "playground/playground_widget.hpp"
#include "views/heatmap_grid.hpp"

namespace fileio {
namespace {
PlaygroundWidget* playgroundOf(const MainWindow& window) {
    for (int i = 0; i < window.tabs()->count(); ++i)
        if (auto* p = qobject_cast<PlaygroundWidget*>(window.tabs()->widget(i))) return p;
    return nullptr;
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
    const QString tab = state.value(QStringLiteral("tab")).toString();
    for (int i = 0; i < window.tabs()->count(); ++i)
        if (window.tabs()->tabText(i) == tab) window.tabs()->setCurrentIndex(i);
}

}  // namespace fileio
