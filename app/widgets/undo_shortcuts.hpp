// AttnScope — Ctrl+Z / Ctrl+Shift+Z undo the scene even from a focused number field.
// GPL-3.0-or-later.
#pragma once

#include <QKeySequence>
#include <QList>
#include <QObject>

class QWidget;

/// A spin box's line edit claims Undo and Redo for its own text, so with a number field
/// focused Edit ▸ Undo never ran. This filter (on the application) lets those two shortcuts
/// through to the window's actions for every spin box in `window`, and for any widget of it
/// marked with setProperty(kSceneUndoProperty, true). Undo pressed while typing in a number
/// field or a marked line edit first discards only the typing (the field shows its value
/// again); the next Undo undoes the scene.
class UndoShortcutRouter : public QObject {
    Q_OBJECT
  public:
    /// Installs itself on qApp; removed with `window`.
    explicit UndoShortcutRouter(QWidget* window);
    ~UndoShortcutRouter() override;

    /// Lets KEYS through to the window's action from every text field of the window too (a line
    /// edit takes Ctrl+E as "end of line" on X11, so File ▸ Export never ran from one).
    void passThrough(const QKeySequence& keys) { passed_ << keys; }

    /// Name of the boolean property that opts a text field into scene undo.
    static constexpr const char* kSceneUndoProperty = "attnSceneUndo";
    /// Name of the boolean property of a text field whose typing is already an undo step (a
    /// lens's text, merged per burst): Ctrl+Z there is the window's Undo, which takes back the
    /// typing first and the previous change next.
    static constexpr const char* kTypingIsStepProperty = "attnTypingIsStep";

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    QWidget* window_;
    QList<QKeySequence> passed_;
    bool swallowPress_ = false;  ///< the next Undo key press was handled by its override
};
