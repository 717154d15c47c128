// AttnScope — the view state. GPL-3.0-or-later.
#include "model/view_state.hpp"

#include <QUndoStack>
#include <algorithm>

#include "model/playground_model.hpp"
#include "model/scene.hpp"
#include "model/undo_command.hpp"

ViewState* ViewState::of(Scene* scene) {
    if (auto* state = scene->findChild<ViewState*>(QString(), Qt::FindDirectChildrenOnly))
        return state;
    return new ViewState(scene);
}

ViewState::ViewState(Scene* scene)
    : QObject(scene), scene_(scene), playground_(new PlaygroundModel(scene->undoStack(), this)) {}

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

void ViewState::editLensSettings(const QString& lens, const QJsonObject& settings,
                                 const QString& what, const QString& mergeKey) {
    // A lens catching up with an undo step of the scene (its ranges, its sentences) is no edit.
    if (applyingUndoStep()) return setLensSettings(lens, settings);
    const QJsonObject before = lenses_.value(lens);
    if (before == settings && lenses_.contains(lens)) return;
    // The command holds the lens's two settings and this model, never the lens's widgets.
    auto* command = new StateCommand<QJsonObject>(
        [this, lens](const QJsonObject& s) { setLensSettings(lens, s); },
        [this, lens]() -> const QJsonObject& { return lenses_[lens]; }, before, settings, what,
        mergeKey.isEmpty() || scene_->mergeWindow() <= 0 ? kNoMerge : kLensControl,
        scene_->mergeWindow());
    command->setMergeTag(lens + QLatin1Char('/') + mergeKey);
    setLensSettings(lens, settings);  // shown now: the command's first redo is a no-op
    scene_->undoStack()->push(command);
}

void ViewState::setZoom(int head, const HeatmapViewport& region) {
    if (head < 0) return;
    const bool zoomed = region.n > 0 && !region.whole();
    if (zoomed ? zooms_.value(head) == region : !zooms_.contains(head)) return;
    if (zoomed)
        zooms_.insert(head, region);
    else
        zooms_.remove(head);
    Q_EMIT zoomChanged(head, zoomed ? region : HeatmapViewport{});
}

void ViewState::setViewOptions(const ViewOptions& options) {
    if (options == viewOptions_) return;
    viewOptions_ = options;
    Q_EMIT viewOptionsChanged(options);
}

void ViewState::setInnerTab(const QString& tab, const QString& key) {
    if (key.isEmpty() || innerTabs_.value(tab) == key) return;
    innerTabs_.insert(tab, key);
    Q_EMIT innerTabChanged(tab, key);
}
