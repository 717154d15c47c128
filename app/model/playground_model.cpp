// AttnScope — the playground's model. GPL-3.0-or-later.
#include "model/playground_model.hpp"

#include <QColor>
#include <QUndoStack>
#include <algorithm>

#include "attn/util/error.hpp"
#include "model/undo_command.hpp"

PlaygroundModel::PlaygroundModel(QUndoStack* undo, QObject* parent) : QObject(parent), undo_(undo) {
    state_ = attn::playground_preset(attn::PlaygroundPreset::HullCorners);
    recompute();
}

void PlaygroundModel::setState(const attn::PlaygroundState& state, const QString& what,
                               int mergeId) {
    if (state == state_) return;
    if (!undo_) {
        resetState(state);
        return;
    }
    undo_->push(makeCommand(state_, state, what, mergeId));
}

QUndoCommand* PlaygroundModel::makeCommand(const attn::PlaygroundState& before,
                                           const attn::PlaygroundState& after, const QString& what,
                                           int mergeId) {
    return new StateCommand<attn::PlaygroundState>(
        [this](const attn::PlaygroundState& s) { resetState(s); },
        [this]() -> const attn::PlaygroundState& { return state_; }, before, after, what, mergeId);
}

void PlaygroundModel::resetState(const attn::PlaygroundState& state) {
    state_ = state;
    recompute();
    pruneSelection();
    Q_EMIT changed();
}

void PlaygroundModel::load(const attn::PlaygroundState& state) {
    setSelection({});
    resetState(state);
    Q_EMIT loaded();
}

void PlaygroundModel::beginLive() {
    liveStart_ = state_;
    live_ = true;
}

void PlaygroundModel::updateLive(const attn::PlaygroundState& state) {
    resetState(state);
}

void PlaygroundModel::commitLive(const QString& what) {
    if (!live_) return;
    live_ = false;
    // The model already shows the final state: the command's first redo is a no-op.
    if (!(liveStart_ == state_) && undo_)
        undo_->push(makeCommand(liveStart_, state_, what, kNoMerge));
    // Views that hold still during a drag (axis ranges) catch up now.
    Q_EMIT changed();
}

void PlaygroundModel::setSelection(const std::vector<PointRef>& selection) {
    if (selection == selection_) return;
    selection_ = selection;
    // Selecting a query makes it the one whose lines, bars and math are shown.
    for (const PointRef& p : selection_) {
        if (p.kind == PointRef::Kind::Query && p.index != state_.selected_query) {
            state_.selected_query = p.index;
            Q_EMIT changed();
            break;
        }
    }
    Q_EMIT selectionChanged();
}

bool PlaygroundModel::isSelected(const PointRef& p) const {
    return std::find(selection_.begin(), selection_.end(), p) != selection_.end();
}

QColor PlaygroundModel::queryColor(int i) {
    // Qualitative (Tableau 10) hues: distinct from each other and from the grey keys/values.
    static const QColor colors[] = {
        QColor(31, 119, 180), QColor(214, 39, 40),  QColor(44, 160, 44),   QColor(148, 103, 189),
        QColor(255, 127, 14), QColor(23, 190, 207), QColor(227, 119, 194), QColor(140, 86, 75)};
    return colors[static_cast<std::size_t>(std::max(i, 0)) % 8];
}

QColor PlaygroundModel::keyColor(const QPalette& palette) {
    const bool dark = palette.color(QPalette::Window).lightness() < 128;
    return dark ? QColor(200, 210, 215) : QColor(55, 71, 79);
}

void PlaygroundModel::recompute() {
    try {
        result_ = attn::compute_playground(state_);
        error_.clear();
    } catch (const attn::Error& e) {
        result_ = attn::PlaygroundResult{};
        error_ = QString::fromUtf8(e.what());
    }
}

void PlaygroundModel::pruneSelection() {
    const auto count = [this](PointRef::Kind k) {
        switch (k) {
            case PointRef::Kind::Query:
                return static_cast<int>(state_.queries.size());
            case PointRef::Kind::Key:
                return static_cast<int>(state_.keys.size());
            case PointRef::Kind::Value:
                return static_cast<int>(state_.values.size());
        }
        return 0;
    };
    const auto before = selection_.size();
    std::erase_if(selection_, [&](const PointRef& p) { return p.index >= count(p.kind); });
    if (before != selection_.size()) Q_EMIT selectionChanged();
}
