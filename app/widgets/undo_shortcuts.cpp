// AttnScope — Ctrl+Z / Ctrl+Shift+Z undo the scene even from a focused number field.
// GPL-3.0-or-later.
#include "widgets/undo_shortcuts.hpp"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QKeyEvent>
#include <QWidget>

namespace {

/// True when Undo/Redo pressed in w is the scene's: a spin box, its inner line edit, or a
/// widget marked with the property.
bool routesUndo(const QWidget* w) {
    if (w->property(UndoShortcutRouter::kSceneUndoProperty).toBool()) return true;
    if (qobject_cast<const QAbstractSpinBox*>(w)) return true;
    const QWidget* parent = w->parentWidget();
    return parent && qobject_cast<const QAbstractSpinBox*>(parent);
}

}  // namespace

UndoShortcutRouter::UndoShortcutRouter(QWidget* window) : QObject(window), window_(window) {
    qApp->installEventFilter(this);
}

UndoShortcutRouter::~UndoShortcutRouter() {
    qApp->removeEventFilter(this);
}

bool UndoShortcutRouter::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::ShortcutOverride || !watched->isWidgetType())
        return QObject::eventFilter(watched, event);
    auto* w = static_cast<QWidget*>(watched);
    auto* key = static_cast<QKeyEvent*>(event);
    if (w->window() != window_ || !routesUndo(w) ||
        !(key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo)))
        return QObject::eventFilter(watched, event);
    // Left unaccepted, the key is tried as a shortcut: the window's Undo or Redo action runs.
    event->ignore();
    return true;
}
