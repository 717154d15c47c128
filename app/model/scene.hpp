// AttnScope — the Scene: the parameters of what is shown, with undo, and the shared selection.
// GPL-3.0-or-later.
#pragma once

#include <QObject>
#include <QString>
#include <vector>

#include "attn/scene/scene.hpp"
#include "model/selection.hpp"

class QUndoStack;

/// Holds the SceneSpec. Every change goes through the undo stack (setSpec pushes a command);
/// views never talk to each other, they follow Scene's signals.
class Scene : public QObject {
    Q_OBJECT
  public:
    explicit Scene(QObject* parent = nullptr);

    const attn::SceneSpec& spec() const { return spec_; }
    /// Replaces the spec through an undoable command named `what` (e.g. "Change temperature").
    /// Consecutive changes with the same non-empty mergeKey merge into one undo step (sliders).
    void setSpec(const attn::SceneSpec& spec, const QString& what, int mergeKey = -1);
    /// Shows another layer or component of the same data: an undoable step like setSpec, but
    /// like the selection it leaves a saved document saved (nothing of it was edited).
    void showPart(const attn::SceneSpec& spec, const QString& what);
    /// Shows sub-word pieces merged into words, or the pieces again (one undoable step); every
    /// view, export and the math panel follow the spec (attn::kWordMergeRule).
    void setMergeWords(bool on);
    /// Replaces the spec without an undo entry (used by the undo commands themselves, loading).
    void resetSpec(const attn::SceneSpec& spec);

    const Selection& selection() const { return selection_; }
    void setSelection(const Selection& selection);
    /// Keeps the selection inside a result of the given size (after n or h changed).
    void clampSelection(int queries, int keys, int heads);

    /// Edits with the same merge key merge only while they follow each other within this many
    /// milliseconds (one slider drag = one undo step; a later drag is a new step). 0: never merge.
    void setMergeWindow(int milliseconds) { mergeWindowMs_ = milliseconds; }
    int mergeWindow() const { return mergeWindowMs_; }

    QUndoStack* undoStack() const { return undo_; }

  Q_SIGNALS:
    /// The spec changed (by an edit, undo or redo): recompute.
    void specChanged();
    void selectionChanged();

  private:
    attn::SceneSpec spec_;
    Selection selection_;
    QUndoStack* undo_ = nullptr;
    int mergeWindowMs_ = 1500;
};
