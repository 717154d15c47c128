// AttnScope — which head and cell the grid's context menu is for: the one under the pointer, or
// the selected one for the Menu key. GPL-3.0-or-later.
#include <QApplication>
#include <QContextMenuEvent>

#include "model/heatmap_model.hpp"
#include "views/head_heatmap.hpp"
#include "views/heatmap_grid.hpp"

void HeatmapGrid::requestSelectedMenu() {
    const Selection& s = model_->selection();
    if (s.head < 0 || s.head >= headCount()) return;
    HeadHeatmap* h = head(s.head);
    // At the selected cell when the head shows it, else at the head's centre.
    QPoint at = h->rect().center();
    if (s.query >= 0 && s.key >= 0) {
        const QPoint c = h->cellCentre(s.query, s.key);
        if (h->rect().contains(c)) at = c;
    }
    Q_EMIT headMenuRequested(s.head, QPoint(s.key, s.query), h->mapToGlobal(at));
}

void HeatmapGrid::contextMenuEvent(QContextMenuEvent* event) {
    if (event->reason() == QContextMenuEvent::Keyboard) {
        // The Menu key: the window system sends this after the key press (which opened the
        // menu already when the grid had the focus).
        if (!QApplication::activePopupWidget()) requestSelectedMenu();
        return;
    }
    // The head under the pointer: the deepest child there, or one of its parents.
    HeadHeatmap* heatmap = nullptr;
    for (QWidget* w = childAt(event->pos()); w && w != this && !heatmap; w = w->parentWidget())
        heatmap = qobject_cast<HeadHeatmap*>(w);
    if (!heatmap) return;  // no head there: no menu (nor the window's dock menu)
    Q_EMIT headMenuRequested(heatmap->head(), heatmap->cellAt(heatmap->mapFrom(this, event->pos())),
                             event->globalPos());
}
