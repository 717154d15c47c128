// AttnScope — ablating and restoring a model's heads as undoable scene edits.
// GPL-3.0-or-later.
#include "model/interventions_edit.hpp"

#include <QCoreApplication>
#include <algorithm>

#include "attn/models/model.hpp"
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

bool isKnockedOut(const attn::SceneSpec& spec, const attn::model::Knockout& edge) {
    const auto& k = spec.interventions.knockouts;
    return std::find(k.begin(), k.end(), edge) != k.end();
}

QString knockoutText(const attn::SceneSpec& spec, const attn::model::Knockout& edge) {
    const QString what =
        QStringLiteral("%1.%2:%3>%4")
            .arg(edge.layer)
            .arg(edge.head)
            .arg(edge.query < 0 ? QStringLiteral("*") : QString::number(edge.query))
            .arg(edge.key);
    return (isKnockedOut(spec, edge) ? QCoreApplication::translate("Scene", "Restore %1")
                                     : QCoreApplication::translate("Scene", "Knock out %1"))
        .arg(what);
}

bool toggleKnockout(Scene& scene, const attn::model::Knockout& edge) {
    const attn::SceneSpec& spec = scene.spec();
    if (!spec.is_model() || !spec.model->model) return false;
    const attn::model::ModelInfo& info = spec.model->model->info();
    if (edge.layer < 0 || edge.layer >= info.layers || edge.head < 0 || edge.head >= info.heads ||
        edge.key < 0 || edge.query < -1)
        return false;
    attn::SceneSpec next = spec;
    auto& k = next.interventions.knockouts;
    if (const auto it = std::find(k.begin(), k.end(), edge); it != k.end())
        k.erase(it);
    else
        k.insert(std::upper_bound(k.begin(), k.end(), edge), edge);  // kept sorted
    scene.setSpec(next, knockoutText(spec, edge));
    return true;
}

std::vector<attn::model::Knockout> knockoutsOf(const attn::SceneSpec& spec, int layer, int head) {
    std::vector<attn::model::Knockout> out;
    for (const attn::model::Knockout& k : spec.interventions.knockouts)
        if (k.layer == layer && k.head == head) out.push_back(k);
    return out;
}
