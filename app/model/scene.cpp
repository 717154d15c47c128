// AttnScope — the Scene: parameters, undo, selection. GPL-3.0-or-later.
#include "model/scene.hpp"

#include <QUndoStack>
#include <algorithm>

#include "model/undo_command.hpp"

Scene::Scene(QObject* parent) : QObject(parent), undo_(new QUndoStack(this)) {
    // Specs are small unless they hold explicit matrices; a bound keeps long sessions flat.
    undo_->setUndoLimit(1000);
}

void Scene::setSpec(const attn::SceneSpec& spec, const QString& what, int mergeKey) {
    // No-op edits (e.g. a spin box re-emitting its value) must not create undo steps.
    if (spec == spec_) return;
    const int id = mergeKey < 0 || mergeWindowMs_ <= 0 ? kNoMerge : mergeKey;
    // Undo puts the previous spec back exactly; copies share the embeddings and weights.
    undo_->push(
        new StateCommand<attn::SceneSpec>([this](const attn::SceneSpec& s) { resetSpec(s); },
                                          [this]() -> const attn::SceneSpec& { return spec_; },
                                          spec_, spec, what, id, mergeWindowMs_));
}

void Scene::showPart(const attn::SceneSpec& spec, const QString& what) {
    const bool saved = undo_->isClean();
    setSpec(spec, what);
    if (saved) undo_->setClean();
}

void Scene::setMergeWords(bool on) {
    attn::SceneSpec s = spec_;
    s.merge_words = on;
    setSpec(s, on ? tr("Merge sub-words into words") : tr("Show sub-word pieces"));
}

void Scene::resetSpec(const attn::SceneSpec& spec) {
    spec_ = spec;
    Q_EMIT specChanged();
}

void Scene::setSelection(const Selection& selection) {
    if (selection == selection_) return;
    selection_ = selection;
    Q_EMIT selectionChanged();
}

void Scene::clampSelection(int queries, int keys, int heads) {
    Selection s = selection_;
    if (s.query >= queries) s.query = queries > 0 ? queries - 1 : -1;
    if (s.key >= keys) s.key = keys > 0 ? keys - 1 : -1;
    s.head = std::clamp(s.head, 0, std::max(0, heads - 1));
    std::erase_if(s.queries, [queries](int q) { return q >= queries; });
    if (s.queries.size() < 2) s.queries.clear();
    std::erase_if(s.keys, [keys](int k) { return k >= keys; });
    if (s.keys.size() < 2) s.keys.clear();
    setSelection(s);
}
