// AttnScope — a view that scrolls rather than squashes below its readable size.
// GPL-3.0-or-later.
#include "views/scroll_frame.hpp"

#include <QLayout>
#include <QResizeEvent>
#include <QScrollBar>
#include <algorithm>

namespace {
// The least width of a frame: below it the content scrolls.
constexpr int kLeastWidth = 120;
}  // namespace

ScrollFrame::ScrollFrame(QWidget* content, QWidget* parent) : QScrollArea(parent) {
    setFrameShape(QFrame::NoFrame);
    setWidgetResizable(true);
    setWidget(content);
    // The frame itself may shrink: its content scrolls.
    setMinimumSize(kLeastWidth, 100);
}

void ScrollFrame::setWidthFirst(bool on) {
    if (on == widthFirst_) return;
    widthFirst_ = on;
    // The parent's size decides how much the frame may claim.
    if (parentWidget()) parentWidget()->installEventFilter(this);
    if (on)
        claimWidth();
    else
        setMinimumWidth(kLeastWidth);
}

void ScrollFrame::claimWidth() {
    QWidget* parent = parentWidget();
    QWidget* content = widget();
    if (!widthFirst_ || !parent || !parent->layout() || !content) return;
    int least = kLeastWidth;
    if (!fitting_) {
        // A vertical scroll bar (a short window) takes its width from the content's.
        const QSize need = content->minimumSizeHint().expandedTo(content->minimumSize());
        const bool scrolls = need.height() > height();
        const int want = need.width() + 2 * frameWidth() +
                         (scrolls ? verticalScrollBar()->sizeHint().width() : 0);
        // What the neighbours, margins and spacing need at the least: the rest may be ours.
        const int others = parent->layout()->minimumSize().width() - minimumWidth();
        least = std::clamp(parent->width() - others, kLeastWidth, std::max(kLeastWidth, want));
    }
    if (least != minimumWidth()) setMinimumWidth(least);
}

bool ScrollFrame::eventFilter(QObject* watched, QEvent* event) {
    // A new size, or a neighbour's new least width (its text changed).
    if (watched == parentWidget() &&
        (event->type() == QEvent::Resize || event->type() == QEvent::LayoutRequest))
        claimWidth();
    return QScrollArea::eventFilter(watched, event);
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
    claimWidth();
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
    // A new height may bring or drop the vertical scroll bar.
    if (widthFirst_ && event->size().height() != event->oldSize().height()) claimWidth();
    Q_EMIT viewportResized();
}
