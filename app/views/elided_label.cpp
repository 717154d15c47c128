// AttnScope — a label of at most two lines that elides what does not fit. GPL-3.0-or-later.
#include "views/elided_label.hpp"

#include <QEvent>
#include <QTextLayout>
#include <algorithm>

ElidedLabel::ElidedLabel(QWidget* parent) : QLabel(parent) {
    setTextFormat(Qt::PlainText);
    setWordWrap(false);  // the label breaks the line itself (elide() below)
    // Ignored: the text never asks for width (the window's minimum stays what the views need).
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
}

void ElidedLabel::setFullText(const QString& text) {
    full_ = text;
    elide();
}

QSize ElidedLabel::sizeHint() const {
    const QMargins m = contentsMargins();
    return {QLabel::sizeHint().width(),
            lines_ * fontMetrics().lineSpacing() + m.top() + m.bottom() + 2 * margin()};
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
    const int room = std::max(1, contentsRect().width());
    const QFontMetrics fm = fontMetrics();
    QString shown = full_;
    int lines = 1;
    if (fm.horizontalAdvance(full_) > room) {
        // The first line breaks where a word ends (QTextLayout's wrapping); the rest is the
        // second line, elided if it is still too long.
        QTextLayout layout(full_, font());
        QTextOption option;
        option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
        layout.setTextOption(option);
        layout.beginLayout();
        QTextLine first = layout.createLine();
        first.setLineWidth(room);
        const int cut = std::max(1, first.textLength());
        layout.endLayout();
        const QString rest = full_.mid(cut).trimmed();
        shown = full_.left(cut).trimmed() + QLatin1Char('\n') +
                fm.elidedText(rest, Qt::ElideRight, room);
        lines = 2;
    }
    elided_ = shown.count(QChar(0x2026)) > full_.count(QChar(0x2026));
    setText(shown);
    setToolTip(elided_ ? full_ : wholeToolTip_);
    const int width = contentsRect().width();
    const int keep = width == lastWidth_ ? std::max(lines_, lines) : lines;
    lastWidth_ = width;
    if (keep != lines_) {
        lines_ = keep;
        updateGeometry();
    }
}
