// AttnScope — a column of panels that scrolls up and down, never sideways. GPL-3.0-or-later.
#include "widgets/column_scroll.hpp"

#include <QEvent>

ColumnScroll::ColumnScroll(QWidget* content, QWidget* parent) : QScrollArea(parent) {
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setWidget(content);
}

bool ColumnScroll::viewportEvent(QEvent* event) {
    // The content's width follows the viewport's (which the vertical scroll bar narrows).
    if (event->type() == QEvent::Resize && widget()) widget()->setMaximumWidth(viewport()->width());
    return QScrollArea::viewportEvent(event);
}
