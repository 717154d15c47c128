// AttnScope — the one undo command: a swap between two states, and every merge id.
// GPL-3.0-or-later.
#pragma once

#include <QElapsedTimer>
#include <QString>
#include <QUndoCommand>
#include <functional>
#include <utility>

/// Merge ids of every command on the application's one undo stack (the scene's controls and the
/// playground's share it): consecutive edits with the same id (a slider drag, typing) merge
/// into one undo step. Kept in one enum so that no two controls can share an id by accident.
enum MergeId : int {
    kNoMerge = -1,
    // The scene's controls.
    kTemperatureControl = 1,
    kWindowControl,
    kSeedControl,
    kDModelControl,
    kSigmaControl,
    kTextControl,
    kPaddingControl,
    kGlobalControl,
    kDataDkControl,
    kGenerateControl,  ///< the sentence growing as tokens are generated, and scrubbing back
    kLensControl,      ///< a lens's control (StateCommand::setMergeTag names lens and control)
    // The playground's controls (W has four cells: kPlaygroundW + 0…3).
    kPlaygroundW = 0x100,
    kPlaygroundSigma = kPlaygroundW + 4,
    kPlaygroundAsIf,
    kPlaygroundTau,
    kPlaygroundSeed,
    kPlaygroundGrid,
};

/// True while an undo command applies its state (an undo or a redo): what follows from it (a
/// view catching up with the scene) is part of that step, never a step of its own.
inline bool applyingUndoStep(int change = 0) {
    static int depth = 0;
    depth += change;
    return depth > 0;
}

/// Swaps a target between two states: undo applies `before`, redo `after`. Commands of the same
/// type and merge id (≥ 0) that follow each other — within mergeWindowMs of the last one, when
/// it is ≥ 0 — merge; a merge that returns to `before` leaves nothing to undo. The first redo
/// is skipped when the target already shows `after` (a finished drag), so pushing never
/// applies a state twice.
template <class State>
class StateCommand : public QUndoCommand {
  public:
    using Apply = std::function<void(const State&)>;
    using Current = std::function<const State&()>;

    StateCommand(Apply apply, Current current, State before, State after, const QString& text,
                 int mergeId = kNoMerge, int mergeWindowMs = -1)
        : QUndoCommand(text),
          apply_(std::move(apply)),
          current_(std::move(current)),
          before_(std::move(before)),
          after_(std::move(after)),
          mergeId_(mergeId),
          mergeWindowMs_(mergeWindowMs) {
        lastEdit_.start();
    }

    void undo() override { applying(before_); }
    void redo() override {
        if (current_ && current_() == after_) return;
        applying(after_);
    }
    int id() const override { return mergeId_; }
    /// Only commands with the same tag merge (one id for many targets: a lens and a control).
    void setMergeTag(const QString& tag) { mergeTag_ = tag; }
    bool mergeWith(const QUndoCommand* other) override {
        // Checked: another command type may carry the same id.
        const auto* next = dynamic_cast<const StateCommand*>(other);
        if (!next || mergeId_ < 0 || next->mergeId_ != mergeId_ || next->mergeTag_ != mergeTag_)
            return false;
        if (mergeWindowMs_ >= 0 && lastEdit_.elapsed() > mergeWindowMs_) return false;
        lastEdit_.restart();
        after_ = next->after_;
        setObsolete(before_ == after_);
        return true;
    }

  private:
    void applying(const State& state) {
        struct Depth {
            Depth() { applyingUndoStep(+1); }
            ~Depth() { applyingUndoStep(-1); }
        } depth;
        apply_(state);
    }
    Apply apply_;
    Current current_;
    State before_, after_;
    int mergeId_;
    int mergeWindowMs_;
    QString mergeTag_;
    QElapsedTimer lastEdit_;  ///< restarted by each merged edit
};
