// AttnScope — paints a widget tree onto any device, keeping QCustomPlot plots vector.
// GPL-3.0-or-later.
#include "export/widget_painter.hpp"

#include <QApplication>
#include <QLayout>
#include <QWidget>
#include "views/heatmap_grid.hpp"
#include "views/qcp.hpp"

namespace exporting {
namespace {

void paintRecursive(QCPPainter* painter, QWidget* widget, QWidget* root) {
    if (auto* plot = qobject_cast<QCustomPlot*>(widget)) {
        // toPainter sets the plot's viewport to its own size; it must run on a plot that has
        // been laid out, which settleLayout guarantees.
        painter->save();
        plot->toPainter(painter, plot->width(), plot->height());
        painter->restore();
        return;  // a plot's children (if any) are overlays drawn by the plot itself
    }
    const auto flags = widget == root ? QWidget::RenderFlags(QWidget::DrawWindowBackground)
                                      : QWidget::RenderFlags();
    widget->render(painter, QPoint(), QRegion(), flags);
    for (QObject* object : widget->children()) {
        auto* child = qobject_cast<QWidget*>(object);
        if (!child || child->isWindow() || !child->isVisibleTo(root) || child->size().isEmpty())
            continue;
        painter->save();
        painter->translate(child->pos());
        painter->setClipRect(QRect(QPoint(), child->size()), Qt::IntersectClip);
        paintRecursive(painter, child, root);
        painter->restore();
    }
}

}  // namespace

void paintWidgetTree(QCPPainter* painter, QWidget* root) {
    paintRecursive(painter, root, root);
}

void settleLayout(QWidget* root) {
    if (!root->isVisible() && root->isWindow()) {
        // Offscreen: polish and lay out as if shown, without a window appearing anywhere.
        root->setAttribute(Qt::WA_DontShowOnScreen, true);
        root->show();
    }
    // Layouts apply on posted LayoutRequest events; deliver them until nothing is pending.
    for (int i = 0; i < 4; ++i) {
        if (QLayout* layout = root->layout()) layout->activate();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QCoreApplication::sendPostedEvents();
    }
    // A heatmap grid's large cells come from scheduler jobs: a figure draws them, not the
    // cells they are replacing.
    QList<HeatmapGrid*> grids = root->findChildren<HeatmapGrid*>();
    if (auto* grid = qobject_cast<HeatmapGrid*>(root)) grids.append(grid);
    for (HeatmapGrid* grid : grids)
        grid->waitForCells();
}

}  // namespace exporting
