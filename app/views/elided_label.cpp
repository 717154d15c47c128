// AttnScope — a one-line label that elides what does not fit. GPL-3.0-or-later.
#include "views/elided_label.hpp"

#include <QEvent>
#include <algorithm>

ElidedLabel::ElidedLabel(QWidget* parent) : QLabel(parent) {
    setTextFormat(Qt::PlainText);
    setWordWrap(false);
    // Ignored: the text never asks for width (the window's minimum stays what the views need).
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
}

void ElidedLabel::setFullText(const QString& text) {
    full_ = text;
    elide();
}

void ElidedLabel::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    elide();
}

void ElidedLabel::changeEvent(QEvent* event) {
    QLabel::changeEvent(event);
    if (event->type() == QEvent::FontChange) elide();
}

void ElidedLabel::elide() {
    const int room = contentsRect().width();
    const QString shown = fontMetrics().elidedText(full_, Qt::ElideRight, std::max(0, room));
    setText(shown);
    setToolTip(shown == full_ ? wholeToolTip_ : full_);
}
