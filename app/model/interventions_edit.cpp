// AttnScope — ablating and restoring a model's heads as undoable scene edits.
// GPL-3.0-or-later.
#include "model/interventions_edit.hpp"

#include <QCoreApplication>
#include <algorithm>

#include "attn/models/model.hpp"
#include "model/numbering.hpp"
#include "model/scene.hpp"

bool isAblated(const attn::SceneSpec& spec, int layer, int head) {
    const auto& a = spec.interventions.ablated;
    return std::find(a.begin(), a.end(),
                     attn::model::Site{attn::model::kSingleStack, layer, head}) != a.end();
}

QString ablationText(const attn::SceneSpec& spec, int layer, int head) {
    return (isAblated(spec, layer, head) ? QCoreApplication::translate("Scene", "Restore %1")
                                         : QCoreApplication::translate("Scene", "Ablate %1"))
        .arg(headName(layer, head));
}

bool toggleAblation(Scene& scene, int layer, int head) {
    const attn::SceneSpec& spec = scene.spec();
    if (!spec.is_model() || !spec.model->model) return false;
    const attn::model::ModelInfo& info = spec.model->model->info();
    if (layer < 0 || layer >= info.layers || head < 0 || head >= info.heads) return false;
    attn::SceneSpec next = spec;
    auto& a = next.interventions.ablated;
    const attn::model::Site ref{attn::model::kSingleStack, layer, head};
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

QString cliSpelling(const attn::model::Knockout& edge) {
    return QStringLiteral("--knockout %1.%2:%3>%4")
        .arg(edge.site.layer)
        .arg(edge.site.head)
        .arg(edge.query < 0 ? QStringLiteral("*") : QString::number(edge.query))
        .arg(edge.key);
}

QString cliSpelling(const attn::model::Site& head) {
    return QStringLiteral("--ablate %1.%2").arg(head.layer).arg(head.head);
}

QString knockoutText(const attn::SceneSpec& spec, const attn::model::Knockout& edge) {
    const bool on = isKnockedOut(spec, edge);
    const QString text =
        edge.query < 0
            ? (on ? QCoreApplication::translate("Scene", "Restore key %1 in %2")
                  : QCoreApplication::translate("Scene", "Knock out key %1 in %2"))
                  .arg(shown(edge.key))
            : (on ? QCoreApplication::translate("Scene", "Restore query %1 → key %2 in %3")
                  : QCoreApplication::translate("Scene", "Knock out query %1 → key %2 in %3"))
                  .arg(shown(edge.query))
                  .arg(shown(edge.key));
    return text.arg(headName(edge.site.layer, edge.site.head));
}

bool toggleKnockout(Scene& scene, const attn::model::Knockout& edge) {
    const attn::SceneSpec& spec = scene.spec();
    if (!spec.is_model() || !spec.model->model) return false;
    const attn::model::ModelInfo& info = spec.model->model->info();
    const attn::model::Site& site = edge.site;
    if (site.component != attn::model::kSingleStack || site.layer < 0 ||
        site.layer >= info.layers || site.head < 0 || site.head >= info.heads || edge.key < 0 ||
        edge.query < -1)
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
        if (k.site == attn::model::Site{attn::model::kSingleStack, layer, head}) out.push_back(k);
    return out;
}
