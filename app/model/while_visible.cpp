// AttnScope — "recompute only while visible". GPL-3.0-or-later.
#include "model/while_visible.hpp"

#include <QEvent>
#include <QWidget>

WhileVisible::WhileVisible(QWidget* widget, std::function<void()> refresh)
    : QObject(widget), widget_(widget), refresh_(std::move(refresh)) {
    widget_->installEventFilter(this);
}

void WhileVisible::stale() {
    stale_ = true;
    if (!widget_->isVisible()) return;
    stale_ = false;
    refresh_();
}

bool WhileVisible::eventFilter(QObject* watched, QEvent* event) {
    if (watched == widget_ && event->type() == QEvent::Show && stale_) {
        stale_ = false;
        refresh_();
    }
    return QObject::eventFilter(watched, event);
}
