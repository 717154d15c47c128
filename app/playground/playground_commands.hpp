// AttnScope — undo commands of the playground. GPL-3.0-or-later.
#pragma once

#include <QUndoCommand>

#include "attn/playground.hpp"

class PlaygroundModel;

/// Swaps the playground between two states. The first redo is skipped when the model already
/// shows `after` (a finished drag), so pushing never recomputes twice.
class PlaygroundStateCommand : public QUndoCommand {
  public:
    PlaygroundStateCommand(PlaygroundModel* model, attn::PlaygroundState before,
                           attn::PlaygroundState after, const QString& text, int mergeId = -1);

    void undo() override;
    void redo() override;
    int id() const override { return mergeId_; }
    bool mergeWith(const QUndoCommand* other) override;

  private:
    PlaygroundModel* model_;
    attn::PlaygroundState before_, after_;
    int mergeId_;
};
