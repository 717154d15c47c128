// AttnScope — the undoable command behind Scene::setSpec. GPL-3.0-or-later.
#include "model/scene_commands.hpp"

#include "model/scene.hpp"
#include "model/spec_equal.hpp"

SetSpecCommand::SetSpecCommand(Scene* scene, attn::SceneSpec before, attn::SceneSpec after,
                               const QString& text, int mergeId, int mergeWindowMs)
    : QUndoCommand(text),
      scene_(scene),
      before_(std::move(before)),
      after_(std::move(after)),
      mergeId_(mergeId),
      mergeWindowMs_(mergeWindowMs) {
    lastEdit_.start();
}

void SetSpecCommand::undo() {
    scene_->resetSpec(before_);
}

void SetSpecCommand::redo() {
    scene_->resetSpec(after_);
}

bool SetSpecCommand::mergeWith(const QUndoCommand* other) {
    // QUndoStack only asks when ids match and are ≥ 0.
    const auto* next = static_cast<const SetSpecCommand*>(other);
    if (lastEdit_.elapsed() > mergeWindowMs_) return false;
    lastEdit_.restart();
    after_ = next->after_;
    // A slider dragged back to where it started leaves nothing to undo.
    setObsolete(specsEqual(before_, after_));
    return true;
}
