// AttnScope — what a model run changes from the model's own. GPL-3.0-or-later.
#include "model/run_changes.hpp"

#include <QCoreApplication>
#include <QStringList>

#include "attn/models/model.hpp"
#include "model/numbering.hpp"

namespace {

QString changeText(const char* text) {
    return QCoreApplication::translate("RunChanges", text);
}

}  // namespace

QString runChanges(const attn::SceneSpec& spec) {
    if (!spec.is_model()) return {};
    const attn::model::ModelInfo& info = spec.model->model->info();
    QStringList parts;
    if (spec.score != attn::ScoreKind::Dot) parts << changeText("another score function");
    if (!spec.scale) parts << changeText("unscaled");
    if (spec.temperature != 1.f)
        parts << changeText("τ = %1").arg(double(spec.temperature), 0, 'f', 2);
    if (!(spec.mask == attn::model::own_mask(info))) parts << changeText("another mask");
    if (info.rotary && !spec.model_rotary) parts << changeText("rotary positions off");
    if (info.softcap && !spec.model_softcap) parts << changeText("soft-capping off");
    if (!parts.isEmpty() && !spec.model_layers.empty()) {
        QStringList layers;
        for (const int l : spec.model_layers)
            layers << QString::number(shown(l));
        parts << changeText("in layer %1 only").arg(layers.join(QStringLiteral(", ")));
    }
    const auto& in = spec.interventions;
    if (const auto n = in.ablated.size())
        parts << (n == 1 ? changeText("1 head ablated") : changeText("%1 heads ablated").arg(n));
    if (const auto n = in.knockouts.size())
        parts << (n == 1 ? changeText("1 edge knocked out")
                         : changeText("%1 edges knocked out").arg(n));
    return parts.join(QStringLiteral(" · "));
}
