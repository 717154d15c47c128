// AttnScope — undo commands of the playground. GPL-3.0-or-later.
#include "playground/playground_commands.hpp"

#include "playground/playground_model.hpp"

PlaygroundStateCommand::PlaygroundStateCommand(PlaygroundModel* model, attn::PlaygroundState before,
                                               attn::PlaygroundState after, const QString& text,
                                               int mergeId)
    : model_(model), before_(std::move(before)), after_(std::move(after)), mergeId_(mergeId) {
    setText(text);
}

void PlaygroundStateCommand::undo() {
    model_->resetState(before_);
}

void PlaygroundStateCommand::redo() {
    if (model_->state() == after_) return;
    model_->resetState(after_);
}

bool PlaygroundStateCommand::mergeWith(const QUndoCommand* other) {
    if (other->id() != id() || id() < 0) return false;
    after_ = static_cast<const PlaygroundStateCommand*>(other)->after_;
    return true;
}
