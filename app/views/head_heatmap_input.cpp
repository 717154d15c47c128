// AttnScope — a head heatmap's pointer input: hover, clicks, Ctrl+wheel zoom and drag pan.
// GPL-3.0-or-later.
#include <QAbstractScrollArea>
#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "views/head_heatmap.hpp"

namespace {

/// Pixels the pointer may move between press and release and still count as a click.
constexpr int kDragThreshold = 4;

}  // namespace

QPoint HeadHeatmap::cellAt(const QPoint& pos) const {
    if (!result()) return {-1, -1};
    const HeatmapViewport& v = region();
    const QRect r = axisRect()->rect();
    const auto k = attn::Index(std::lround(xAxis->pixelToCoord(pos.x())));
    const auto q = attn::Index(std::lround(yAxis->pixelToCoord(pos.y())));
    const bool inRows =
        pos.y() >= r.top() && pos.y() <= r.bottom() && q >= v.row && q < v.row + v.rows;
    const bool inCols =
        pos.x() >= r.left() && pos.x() <= r.right() && k >= v.col && k < v.col + v.cols;
    if (inRows && inCols) return {int(k), int(q)};
    if (inRows && pos.x() < r.left()) return {-1, int(q)};    // a row (query) label
    if (inCols && pos.y() > r.bottom()) return {int(k), -1};  // a column (key) label
    return {-1, -1};
}

void HeadHeatmap::resizeEvent(QResizeEvent* event) {
    // Not QCustomPlot::resizeEvent: it replots, and refresh() below replots anyway.
    QWidget::resizeEvent(event);
    setViewport(rect());
    refresh();  // recomputes the cells only when the block factors change
}

void HeadHeatmap::mouseMoveEvent(QMouseEvent* event) {
    QCustomPlot::mouseMoveEvent(event);
    if (pressed_ && (event->buttons() & Qt::LeftButton)) {
        const QPoint d = event->pos() - pressPos_;
        if (dragging_ || d.manhattanLength() > kDragThreshold) {
            // Drag pan: the cells under the pointer follow it.
            dragging_ = true;
            const QRect r = axisRect()->rect();
            const double perX = double(dragFrom_.cols) / std::max(1, r.width());
            const double perY = double(dragFrom_.rows) / std::max(1, r.height());
            HeatmapViewport v = dragFrom_;
            v.pan(-d.y() * perY, -d.x() * perX);
            showRegion(v);
            return;
        }
    }
    const QPoint cell = cellAt(event->pos());
    const bool inCell = cell.x() >= 0 && cell.y() >= 0;
    Q_EMIT cellHovered(head_, inCell ? cell.y() : -1, inCell ? cell.x() : -1);
    // What is under the mouse goes to the grid's readout line, never a tooltip: a tooltip
    // covered the neighbouring head and took the click meant for it.
    Q_EMIT hoverTextChanged(readoutAt(event->pos()));
}

QPoint HeadHeatmap::cellCentre(int query, int key) const {
    return {int(std::lround(xAxis->coordToPixel(key))),
            int(std::lround(yAxis->coordToPixel(query)))};
}

bool HeadHeatmap::event(QEvent* event) {
    if (event->type() == QEvent::ContextMenu) {
        // Said here: the scroll area around the heads takes a mouse's context menu event and
        // never passes it up to the grid.
        auto* menu = static_cast<QContextMenuEvent*>(event);
        if (menu->reason() == QContextMenuEvent::Mouse) {
            Q_EMIT menuRequested(head_, cellAt(menu->pos()), menu->globalPos());
            event->accept();
            return true;
        }
    }
    if (event->type() == QEvent::ToolTip) {
        // The resting mouse asks for a tooltip: the readout line already says what is under
        // it, and the request must not travel up to the grid's generic help either.
        QToolTip::hideText();
        event->accept();
        return true;
    }
    return QCustomPlot::event(event);
}

void HeadHeatmap::leaveEvent(QEvent* event) {
    QCustomPlot::leaveEvent(event);
    Q_EMIT cellHovered(head_, -1, -1);
    Q_EMIT hoverTextChanged(QString());
}

void HeadHeatmap::mousePressEvent(QMouseEvent* event) {
    QCustomPlot::mousePressEvent(event);
    if (event->button() != Qt::LeftButton) return;
    pressed_ = true;
    dragging_ = false;
    pressPos_ = event->pos();
    dragFrom_ = region();
}

void HeadHeatmap::mouseReleaseEvent(QMouseEvent* event) {
    QCustomPlot::mouseReleaseEvent(event);
    if (event->button() != Qt::LeftButton || !pressed_) return;
    pressed_ = false;
    if (dragging_) {
        dragging_ = false;
        return;  // a pan, not a click
    }
    const QPoint cell = cellAt(event->pos());
    if (cell.x() >= 0 || cell.y() >= 0) Q_EMIT cellClicked(head_, cell.y(), cell.x());
}

void HeadHeatmap::mouseDoubleClickEvent(QMouseEvent* event) {
    QCustomPlot::mouseDoubleClickEvent(event);
    pressed_ = false;
    if (event->button() == Qt::LeftButton) Q_EMIT headDoubleClicked(head_);
}

void HeadHeatmap::wheelEvent(QWheelEvent* event) {
    // The wheel scrolls the column of heads, as in any list; Ctrl+wheel zooms, as in a browser
    // or a map.
    if (!(event->modifiers() & Qt::ControlModifier) || !result() || queries() == 0) {
        // QCustomPlot stops mouse events from reaching the parents (WA_NoMousePropagation):
        // the enclosing scroll area is handed the wheel itself.
        for (QWidget* w = parentWidget(); w; w = w->parentWidget())
            if (auto* area = qobject_cast<QAbstractScrollArea*>(w)) {
                QCoreApplication::sendEvent(area->viewport(), event);
                return;
            }
        event->ignore();
        return;
    }
    // One notch (120) zooms by 1.25 about the cell under the pointer, which stays in place.
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0) return;
    const QPointF p = event->position();
    const double anchorCol = xAxis->pixelToCoord(p.x()), anchorRow = yAxis->pixelToCoord(p.y());
    HeatmapViewport v = region();
    v.zoom(std::pow(1.25, steps), anchorRow, anchorCol);
    event->accept();
    showRegion(v);
}
