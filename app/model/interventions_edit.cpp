// AttnScope — ablating and restoring a model's heads as undoable scene edits.
// GPL-3.0-or-later.
#include "model/interventions_edit.hpp"

#include <QCoreApplication>
#include <algorithm>

#include "attn/model/model.hpp"
#include "model/scene.hpp"

bool isAblated(const attn::SceneSpec& spec, int layer, int head) {
    const auto& a = spec.interventions.ablated;
    return std::find(a.begin(), a.end(), attn::model::HeadRef{layer, head}) != a.end();
}

QString ablationText(const attn::SceneSpec& spec, int layer, int head) {
    return (isAblated(spec, layer, head)
                ? QCoreApplication::translate("Scene", "Restore head %1.%2")
                : QCoreApplication::translate("Scene", "Ablate head %1.%2"))
        .arg(layer)
        .arg(head);
}

bool toggleAblation(Scene& scene, int layer, int head) {
    const attn::SceneSpec& spec = scene.spec();
    if (!spec.is_model() || !spec.model->model) return false;
    const attn::model::ModelInfo& info = spec.model->model->info();
    if (layer < 0 || layer >= info.layers || head < 0 || head >= info.heads) return false;
    attn::SceneSpec next = spec;
    auto& a = next.interventions.ablated;
    const attn::model::HeadRef ref{layer, head};
    if (const auto it = std::find(a.begin(), a.end(), ref); it != a.end()) {
        a.erase(it);
    } else {
        a.insert(std::upper_bound(a.begin(), a.end(), ref), ref);  // kept sorted
    }
    scene.setSpec(next, ablationText(spec, layer, head));
    return true;
}
