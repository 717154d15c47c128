// AttnScope — the undoable command behind Scene::setSpec. GPL-3.0-or-later.
#pragma once

#include <QElapsedTimer>
#include <QUndoCommand>

#include "attn/scene.hpp"

class Scene;

/// Replaces the scene's spec; undo puts the previous spec back exactly. Commands with the same
/// merge id (≥ 0) that follow each other merge, so dragging a slider is one undo step.
class SetSpecCommand : public QUndoCommand {
  public:
    SetSpecCommand(Scene* scene, attn::SceneSpec before, attn::SceneSpec after, const QString& text,
                   int mergeId, int mergeWindowMs);

    void undo() override;
    void redo() override;
    int id() const override { return mergeId_; }
    bool mergeWith(const QUndoCommand* other) override;

  private:
    Scene* scene_;
    attn::SceneSpec before_, after_;
    int mergeId_;
    int mergeWindowMs_;
    QElapsedTimer lastEdit_;  ///< restarted by each merged edit
};
