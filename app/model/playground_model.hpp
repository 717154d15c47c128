// AttnScope — the playground's state, its computed result, its point selection and its undo.
// GPL-3.0-or-later.
#pragma once

#include <QColor>
#include <QObject>
#include <QPalette>
#include <QString>
#include <vector>

#include "attn/playground/playground.hpp"

class QUndoCommand;
class QUndoStack;

/// A point of the playground: a query, a key or a value, by index.
struct PointRef {
    enum class Kind { Query, Key, Value };
    Kind kind = Kind::Query;
    int index = -1;
    bool operator==(const PointRef&) const = default;
};

/// Holds the PlaygroundState and its PlaygroundResult (recomputed synchronously: a 2-D problem
/// with a few dozen points costs microseconds). Edits go through QUndoCommands on the given
/// stack; a drag updates live and pushes one command when the mouse is released.
class PlaygroundModel : public QObject {
    Q_OBJECT
  public:
    explicit PlaygroundModel(QUndoStack* undo, QObject* parent = nullptr);

    const attn::PlaygroundState& state() const { return state_; }
    const attn::PlaygroundResult& result() const { return result_; }
    QUndoStack* undoStack() const { return undo_; }

    /// Replaces the state through an undoable command named `what`; consecutive edits with the
    /// same mergeId ≥ 0 merge into one undo step (spin boxes, sliders).
    void setState(const attn::PlaygroundState& state, const QString& what, int mergeId = -1);
    /// Replaces the state without an undo entry (undo commands).
    void resetState(const attn::PlaygroundState& state);
    /// Loads a state (a session): no undo entry, no selection; loaded() asks views to fit it.
    void load(const attn::PlaygroundState& state);

    /// Starts a live edit (a drag): remembers the state to undo to.
    void beginLive();
    /// Shows an intermediate state of the live edit (no undo entry).
    void updateLive(const attn::PlaygroundState& state);
    /// Ends the live edit with one undo entry from the remembered state (none if unchanged).
    void commitLive(const QString& what);
    bool isLive() const { return live_; }

    const std::vector<PointRef>& selection() const { return selection_; }
    void setSelection(const std::vector<PointRef>& selection);
    bool isSelected(const PointRef& p) const;

    /// The colour of query i (a fixed qualitative palette, cycled).
    static QColor queryColor(int i);
    /// The neutral ink of keys: contrasts with the background of `palette`.
    static QColor keyColor(const QPalette& palette);

    /// The error of the last computation ("" when it succeeded).
    const QString& error() const { return error_; }

  Q_SIGNALS:
    /// The state (and result) changed: redraw.
    void changed();
    void selectionChanged();
    /// A state was loaded (load()): the planes fit their points.
    void loaded();

  private:
    /// The undo step between two states (its first redo is skipped: the model shows `after`).
    QUndoCommand* makeCommand(const attn::PlaygroundState& before,
                              const attn::PlaygroundState& after, const QString& what, int mergeId);
    void recompute();
    void pruneSelection();

    QUndoStack* undo_;
    attn::PlaygroundState state_;
    attn::PlaygroundResult result_;
    attn::PlaygroundState liveStart_;
    bool live_ = false;
    std::vector<PointRef> selection_;
    QString error_;
};
