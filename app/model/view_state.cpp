// AttnScope — the view state. GPL-3.0-or-later.
#include "model/view_state.hpp"

#include <QUndoStack>
#include <algorithm>

#include "model/scene.hpp"
#include "model/undo_command.hpp"

ViewState* ViewState::of(Scene* scene) {
    if (auto* state = scene->findChild<ViewState*>(QString(), Qt::FindDirectChildrenOnly))
        return state;
    return new ViewState(scene);
}

ViewState::ViewState(Scene* scene) : QObject(scene), scene_(scene) {}

void ViewState::setStyle(const HeatmapStyle& style) {
    if (style == style_) return;
    style_ = style;
    Q_EMIT styleChanged(style_);
}

void ViewState::editStyle(const HeatmapStyle& style, const QString& what) {
    if (style == style_) return;
    // The command holds the two styles and this model, never a widget.
    scene_->undoStack()->push(new StateCommand<HeatmapStyle>(
        [this](const HeatmapStyle& s) { setStyle(s); },
        [this]() -> const HeatmapStyle& { return style_; }, style_, style, what));
}

void ViewState::setFocusedHead(int head) {
    head = std::max(-1, head);
    if (head == focusedHead_) return;
    focusedHead_ = head;
    Q_EMIT focusedHeadChanged(head);
}

void ViewState::setOpenTab(const QString& key) {
    if (key == openTab_) return;
    openTab_ = key;
    Q_EMIT openTabChanged(key);
}

void ViewState::setLensSettings(const QString& lens, const QJsonObject& settings) {
    if (lenses_.value(lens) == settings && lenses_.contains(lens)) return;
    lenses_.insert(lens, settings);
    Q_EMIT lensSettingsChanged(lens, settings);
}
