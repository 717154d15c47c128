// AttnScope — a view that scrolls rather than squashes below its readable size.
// GPL-3.0-or-later.
#include "views/scroll_frame.hpp"

#include <QResizeEvent>
#include <algorithm>

ScrollFrame::ScrollFrame(QWidget* content, QWidget* parent) : QScrollArea(parent) {
    setFrameShape(QFrame::NoFrame);
    setWidgetResizable(true);
    setWidget(content);
    // The frame itself may shrink: its content scrolls.
    setMinimumSize(120, 100);
}

void ScrollFrame::setContentMinimum(const QSize& size) {
    if (size == minimum_) return;
    minimum_ = size;
    apply();
}

void ScrollFrame::setFitting(bool on) {
    if (on == fitting_) return;
    fitting_ = on;
    apply();
}

void ScrollFrame::apply() {
    const Qt::ScrollBarPolicy policy = fitting_ ? Qt::ScrollBarAlwaysOff : Qt::ScrollBarAsNeeded;
    setHorizontalScrollBarPolicy(policy);
    setVerticalScrollBarPolicy(policy);
    // QSize() (no minimum yet) is −1 × −1: never hand that to a widget.
    const QSize least = fitting_ ? QSize(0, 0) : minimum_.expandedTo(QSize(0, 0));
    if (QWidget* content = widget()) content->setMinimumSize(least);
    settle();
}

void ScrollFrame::settle() {
    // Re-setting the flag sizes the content and the scroll bars now, not on a posted event:
    // offscreen renders draw before any event is delivered.
    setWidgetResizable(true);
}

QList<ScrollFrame*> ScrollFrame::setFittingIn(QWidget* root, bool on) {
    QList<ScrollFrame*> frames = root->findChildren<ScrollFrame*>();
    if (auto* self = qobject_cast<ScrollFrame*>(root)) frames.prepend(self);
    QList<ScrollFrame*> changed;
    for (ScrollFrame* frame : frames)
        if (frame->fitting() != on) {
            frame->setFitting(on);
            changed.push_back(frame);
        }
    return changed;
}

QSize ScrollFrame::naturalSize(QWidget* root) {
    QSize grow(0, 0);
    QList<ScrollFrame*> frames = root->findChildren<ScrollFrame*>();
    if (auto* self = qobject_cast<ScrollFrame*>(root)) frames.prepend(self);
    for (ScrollFrame* frame : frames) {
        if (!frame->isVisibleTo(root) && frame != root) continue;
        const QSize view = frame->maximumViewportSize();
        grow = grow.expandedTo(QSize(std::max(0, frame->minimum_.width() - view.width()),
                                     std::max(0, frame->minimum_.height() - view.height())));
    }
    return root->size() + grow;
}

void ScrollFrame::resizeEvent(QResizeEvent* event) {
    QScrollArea::resizeEvent(event);
    Q_EMIT viewportResized();
}
