// AttnScope — the Scene: the parameters of what is shown, with undo, and the shared selection.
// GPL-3.0-or-later.
#pragma once

#include <QObject>
#include <QString>

#include "attn/scene.hpp"

class QUndoStack;

/// Which query / key / head is selected; every view follows it.
struct Selection {
    int query = -1;  ///< row, −1 = none
    int key = -1;    ///< column, −1 = none
    int head = 0;    ///< focused head
    bool operator==(const Selection&) const = default;
};

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
    /// Replaces the spec without an undo entry (used by the undo commands themselves, loading).
    void resetSpec(const attn::SceneSpec& spec);

    const Selection& selection() const { return selection_; }
    void setSelection(const Selection& selection);

    QUndoStack* undoStack() const { return undo_; }

Q_SIGNALS:
    /// The spec changed (by an edit, undo or redo): recompute.
    void specChanged();
    void selectionChanged();

private:
    attn::SceneSpec spec_;
    Selection selection_;
    QUndoStack* undo_ = nullptr;
};
