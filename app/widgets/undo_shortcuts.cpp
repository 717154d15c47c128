// AttnScope — Ctrl+Z / Ctrl+Shift+Z undo the scene even from a focused number field.
// GPL-3.0-or-later.
#include "widgets/undo_shortcuts.hpp"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QDoubleSpinBox>
#include <QKeyEvent>
#include <QLineEdit>
#include <QSpinBox>
#include <QWidget>

namespace {

/// True when Undo/Redo pressed in w is the scene's: a spin box, its inner line edit, or a
/// widget marked with the property.
bool routesUndo(const QWidget* w) {
    if (w->property(UndoShortcutRouter::kSceneUndoProperty).toBool() ||
        w->property(UndoShortcutRouter::kTypingIsStepProperty).toBool())
        return true;
    if (qobject_cast<const QAbstractSpinBox*>(w)) return true;
    const QWidget* parent = w->parentWidget();
    return parent && qobject_cast<const QAbstractSpinBox*>(parent);
}

/// Puts back the committed text of a field the user is typing in (a spin box shows its value
/// again; a marked line edit loses its typing) and returns whether there was typing to discard.
bool discardTyping(QWidget* w) {
    if (w->property(UndoShortcutRouter::kTypingIsStepProperty).toBool()) return false;
    QWidget* owner = qobject_cast<QAbstractSpinBox*>(w) ? w : w->parentWidget();
    if (auto* spin = qobject_cast<QAbstractSpinBox*>(owner)) {
        const QString typed = spin->text();
        // Setting the value it holds rewrites the text from it, emitting nothing.
        if (auto* i = qobject_cast<QSpinBox*>(spin)) i->setValue(i->value());
        if (auto* d = qobject_cast<QDoubleSpinBox*>(spin)) d->setValue(d->value());
        return spin->text() != typed;
    }
    auto* edit = qobject_cast<QLineEdit*>(w);
    if (!edit || !edit->isUndoAvailable()) return false;
    // The field's own history starts at the text the scene last gave it (setText clears it).
    while (edit->isUndoAvailable())
        edit->undo();
    return true;
}

/// True when W is WINDOW or inside it, a floating dock of it included.
bool within(const QWidget* w, const QWidget* window) {
    for (; w; w = w->parentWidget())
        if (w == window) return true;
    return false;
}

}  // namespace

UndoShortcutRouter::UndoShortcutRouter(QWidget* window) : QObject(window), window_(window) {
    qApp->installEventFilter(this);
}

UndoShortcutRouter::~UndoShortcutRouter() {
    qApp->removeEventFilter(this);
}

bool UndoShortcutRouter::eventFilter(QObject* watched, QEvent* event) {
    const bool override = event->type() == QEvent::ShortcutOverride;
    if ((!override && event->type() != QEvent::KeyPress) || !watched->isWidgetType())
        return QObject::eventFilter(watched, event);
    auto* w = static_cast<QWidget*>(watched);
    auto* key = static_cast<QKeyEvent*>(event);
    if (override && within(w, window_) && passed_.contains(QKeySequence(key->keyCombination()))) {
        event->ignore();  // not the field's: tried as a shortcut, the window's action runs
        return true;
    }
    if (w->window() != window_ || !routesUndo(w) ||
        !(key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo)))
        return QObject::eventFilter(watched, event);
    if (!override) {
        // The key press after an override that discarded typing: it has done its work.
        if (!swallowPress_) return QObject::eventFilter(watched, event);
        swallowPress_ = false;
        return true;
    }
    // Ctrl+Z while typing first discards the typing only; the next one undoes the scene.
    if (key->matches(QKeySequence::Undo) && discardTyping(w)) {
        swallowPress_ = true;
        event->accept();  // no shortcut runs; the key press that follows is swallowed above
        return true;
    }
    // Left unaccepted, the key is tried as a shortcut: the window's Undo or Redo action runs.
    event->ignore();
    return true;
}
