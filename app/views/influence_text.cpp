// AttnScope — the Influence view's words. GPL-3.0-or-later.
#include "views/influence_text.hpp"

#include <QCoreApplication>

#include "model/influence_compute.hpp"

namespace influence_text {
namespace {

QString influenceTr(const char* text) {
    return QCoreApplication::translate("InfluenceView", text);
}

}  // namespace

QString name(const QString& key) {
    if (key == QLatin1StringView("saliency")) return influenceTr("Saliency");
    if (key == QLatin1StringView("input_x_gradient")) return influenceTr("Input × gradient");
    if (key == QLatin1StringView("integrated_gradients"))
        return influenceTr("Integrated gradients");
    if (key == QLatin1StringView("attention")) return influenceTr("Last-layer attention");
    if (key == QLatin1StringView("rollout")) return influenceTr("Attention rollout");
    if (key == QLatin1StringView("attention_flow")) return influenceTr("Attention flow");
    if (key == QLatin1StringView("alti_rollout")) return influenceTr("ALTI rollout");
    if (key == QLatin1StringView("value_zeroing")) return influenceTr("Value zeroing");
    if (key == QLatin1StringView("norm_based")) return influenceTr("Norm-based ‖αf‖");
    return key;
}

QString shortName(const QString& key) {
    if (key == QLatin1StringView("input_x_gradient")) return influenceTr("In×grad");
    if (key == QLatin1StringView("integrated_gradients")) return influenceTr("IG");
    if (key == QLatin1StringView("attention")) return influenceTr("Attention");
    if (key == QLatin1StringView("rollout")) return influenceTr("Rollout");
    if (key == QLatin1StringView("attention_flow")) return influenceTr("Flow");
    if (key == QLatin1StringView("alti_rollout")) return influenceTr("ALTI");
    if (key == QLatin1StringView("value_zeroing")) return influenceTr("V-zero");
    if (key == QLatin1StringView("norm_based")) return influenceTr("Norm");
    return name(key);
}

QString explanation(const QString& key) {
    if (key == QLatin1StringView("saliency"))
        return influenceTr(
            "‖∂logit/∂x₀,ᵢ‖₂: how sharply the logit responds to token i's input vector "
            "(Simonyan et al., 2014).");
    if (key == QLatin1StringView("input_x_gradient"))
        return influenceTr(
            "Σ_d x₀,ᵢ,d · ∂logit/∂x₀,ᵢ,d: the first-order change of the logit if token i's "
            "input went to zero; signed (Shrikumar et al., 2017).");
    if (key == QLatin1StringView("integrated_gradients"))
        return influenceTr(
            "The gradient averaged along the straight path from a zero input to the real "
            "one (M steps, midpoint rule), times the input; the tokens' sum approaches the "
            "logit's change, within ig_delta (Sundararajan et al., 2017).");
    if (key == QLatin1StringView("attention"))
        return influenceTr(
            "The last layer's attention row of the explained position, mean over its "
            "heads: where the final layer looked (Jain & Wallace, 2019; Serrano & Smith, "
            "2019, on why this is not an explanation by itself).");
    if (key == QLatin1StringView("rollout"))
        return influenceTr(
            "Each layer's mean attention mixed half and half with the residual identity, "
            "multiplied through the layers (Abnar & Zuidema, 2020).");
    if (key == QLatin1StringView("attention_flow"))
        return influenceTr(
            "The same layer graph read as a flow network: the maximum flow from each input "
            "token to the explained position (Abnar & Zuidema, 2020).");
    if (key == QLatin1StringView("alti_rollout"))
        return influenceTr(
            "Each block's output split exactly into per-token terms (residual included), "
            "their L1 closeness to the output as contributions, multiplied through the "
            "layers (Ferrando et al., 2022).");
    if (key == QLatin1StringView("value_zeroing"))
        return influenceTr(
            "Each layer re-run with token j's value vectors zeroed: 1 − cosine of the "
            "changed output, rows normalised, multiplied through the layers as ALTI's "
            "(Mohebbi et al., 2023).");
    if (key == QLatin1StringView("norm_based"))
        return influenceTr(
            "‖α_ij · f(x_j)‖ in the last layer, summed over its heads: the size of what "
            "each token's value carries, not only its weight (Kobayashi et al., 2020).");
    return {};
}

QString caution() {
    return influenceTr(
        "Attention shows where a head looked; these methods show what changed the "
        "output.");
}

QString methodsPage() {
    QString html = QStringLiteral("<p><b>%1</b></p>").arg(caution().toHtmlEscaped());
    html += QStringLiteral("<p>%1</p>")
                .arg(influenceTr(
                         "Each strip scores every token for the chosen prediction: the gradient "
                         "methods through an exact reverse pass of the model's forward, the "
                         "others from the run's own attention and values. The faithfulness "
                         "curves erase the tokens each method ranks highest (their input rows "
                         "set to zero) and rerun: the faster the logit falls below the random "
                         "orders, the more faithful the ranking (ERASER's comprehensiveness, "
                         "DeYoung et al., 2020).")
                         .toHtmlEscaped());
    for (const QString& key : influence::methodKeys())
        html += QStringLiteral("<p><b>%1</b>: %2</p>")
                    .arg(name(key).toHtmlEscaped(), explanation(key).toHtmlEscaped());
    html += QStringLiteral("<p><b>%1</b>: %2</p>")
                .arg(influenceTr("Attention × gradient").toHtmlEscaped(),
                     influenceTr(
                         "A ⊙ ∂logit/∂A for every head's weights: the first-order effect of each "
                         "attention weight on the logit, i.e. where attention mattered.")
                         .toHtmlEscaped());
    return html;
}

}  // namespace influence_text
