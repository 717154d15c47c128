// AttnScope app tests — does a widget's text fit it: labels (word wrap and rich text as Qt lays
// them out), buttons, combo boxes, elided labels at rest and line edits showing their
// beginning. Shared by text_fit_test.cpp and the views' own fit checks. GPL-3.0-or-later.
#pragma once

#include <QAbstractButton>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QStyleOptionComboBox>
#include <QTextDocument>
#include <QToolButton>

#include "views/elided_label.hpp"

namespace test_support {

inline constexpr int kSlack = 1;  // rounding of fractional font metrics

/// Why label's text does not fit its contents rectangle, or "".
inline QString labelMisfit(const QLabel* l) {
    if (l->text().isEmpty() || !l->pixmap().isNull()) return {};
    const QRect cr =
        l->contentsRect().adjusted(l->margin(), l->margin(), -l->margin(), -l->margin());
    const bool rich = l->textFormat() == Qt::RichText ||
                      (l->textFormat() == Qt::AutoText && Qt::mightBeRichText(l->text()));
    QSizeF need;
    if (rich) {
        QTextDocument doc;
        doc.setDefaultFont(l->font());
        doc.setDocumentMargin(0);
        doc.setHtml(l->text());
        if (l->wordWrap()) doc.setTextWidth(cr.width());
        need = QSizeF(doc.idealWidth(), doc.size().height());
    } else {
        const QFontMetrics fm(l->font());
        // QLabel draws "&S" as S (underlined with a buddy): '&' takes no room.
        const int mnemonic = int(Qt::TextShowMnemonic);
        const QRect box = l->wordWrap()
                              ? fm.boundingRect(QRect(0, 0, cr.width(), 100000),
                                                Qt::TextWordWrap | mnemonic, l->text())
                              : fm.boundingRect(QRect(0, 0, 100000, 100000), mnemonic, l->text());
        need = box.size();
    }
    if (need.width() > cr.width() + kSlack || need.height() > cr.height() + kSlack)
        return QStringLiteral("needs %1×%2, has %3×%4")
            .arg(need.width())
            .arg(need.height())
            .arg(cr.width())
            .arg(cr.height());
    return {};
}

inline QString buttonMisfit(const QAbstractButton* b) {
    if (b->text().isEmpty()) return {};
    if (auto* tool = qobject_cast<const QToolButton*>(b);
        tool && tool->toolButtonStyle() == Qt::ToolButtonIconOnly)
        return {};
    const QSize hint = b->sizeHint();
    if (hint.width() > b->width() + kSlack)
        return QStringLiteral("needs %1 px, has %2").arg(hint.width()).arg(b->width());
    return {};
}

inline QString comboMisfit(const QComboBox* c) {
    if (c->currentText().isEmpty() || c->isEditable()) return {};
    QStyleOptionComboBox opt;
    opt.initFrom(c);
    opt.editable = false;
    opt.currentText = c->currentText();
    const QRect field =
        c->style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, c);
    const int need = c->fontMetrics().horizontalAdvance(c->currentText());
    if (need > field.width() + kSlack)
        return QStringLiteral("“%1” needs %2 px, field %3")
            .arg(c->currentText())
            .arg(need)
            .arg(field.width());
    return {};
}

/// Every visible text under ROOT that does not fit its widget, one line each, WHERE first.
inline QStringList widgetTextFaults(QWidget* root, const QString& where) {
    QStringList out;
    auto name = [&](const QWidget* x, const QString& text) {
        return QStringLiteral("%1: %2 %3 “%4”")
            .arg(where, QString::fromLatin1(x->metaObject()->className()), x->objectName(),
                 text.left(80));
    };
    for (QWidget* x : root->findChildren<QWidget*>()) {
        if (!x->isVisible() || x->width() <= 0 || x->height() <= 0) continue;
        QString why;
        if (auto* e = qobject_cast<ElidedLabel*>(x)) {
            if (e->isElided())
                why = QStringLiteral("elided at rest");
            else
                why = labelMisfit(e);
            if (!why.isEmpty()) out << name(x, e->fullText()) + QStringLiteral(": ") + why;
            continue;
        }
        // A line edit too narrow for its text shows its beginning at rest, never a tail
        // cut mid-word ("ea was signed in …").
        if (auto* e = qobject_cast<QLineEdit*>(x)) {
            const bool wide =
                e->fontMetrics().horizontalAdvance(e->text()) > e->contentsRect().width() - 8;
            if (wide && !e->hasFocus() && e->cursorPosition() != 0)
                out << name(x, e->text()) +
                           QStringLiteral(": shows from character %1").arg(e->cursorPosition());
            continue;
        }
        if (auto* l = qobject_cast<QLabel*>(x)) why = labelMisfit(l);
        if (auto* b = qobject_cast<QAbstractButton*>(x)) why = buttonMisfit(b);
        if (auto* c = qobject_cast<QComboBox*>(x)) why = comboMisfit(c);
        if (!why.isEmpty()) {
            const QString text = qobject_cast<QLabel*>(x) ? qobject_cast<QLabel*>(x)->text()
                                 : qobject_cast<QAbstractButton*>(x)
                                     ? qobject_cast<QAbstractButton*>(x)->text()
                                     : qobject_cast<QComboBox*>(x)->currentText();
            out << name(x, text) + QStringLiteral(": ") + why;
        }
    }
    return out;
}

}  // namespace test_support
