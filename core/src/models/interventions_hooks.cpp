// AttnScope core — ablation and knockout as hooks. GPL-3.0-or-later.
#include "interventions_hooks.hpp"

#include <algorithm>
#include <string>

#include "attn/util/error.hpp"

namespace attn::model {

void check_interventions(const ModelInfo& info, const Interventions& iv) {
    const auto head_ok = [&](const Site& s) {
        return s.component == kSingleStack && s.layer >= 0 && s.layer < info.layers &&
               s.head >= 0 && s.head < info.heads;
    };
    const auto named = [](const Site& s) {
        // A model of one stack names its sites L.H; another component is named as the CLI's.
        return (s.component == kSingleStack ? std::string()
                                            : std::string(component_name(s.component)) + ".") +
               std::to_string(s.layer) + "." + std::to_string(s.head);
    };
    for (const Site& r : iv.ablated)
        if (!head_ok(r))
            throw ArgumentError("head " + named(r) + " does not exist (the model has " +
                                std::to_string(info.layers) + " layers of " +
                                std::to_string(info.heads) + " heads)");
    for (const Knockout& k : iv.knockouts)
        if (!head_ok(k.site) || k.key < 0 || k.query < -1)
            throw ArgumentError("knockout " + named(k.site) + ":" + std::to_string(k.query) + ">" +
                                std::to_string(k.key) + " is outside the model");
}

void InterventionHooks::pattern(int layer, int head, Matrix& w) {
    for (const Knockout& k : iv_.knockouts) {
        if (k.site != Site{stack_, layer, head} || k.key >= w.cols()) continue;
        const Index first = k.query < 0 ? 0 : k.query, last = k.query < 0 ? w.rows() : k.query + 1;
        for (Index i = first; i < std::min<Index>(last, w.rows()); ++i) {
            w(i, k.key) = 0.f;
            // Renormalised over the keys left; a row left with nothing stays all zero.
            const float sum = w.row(i).sum();
            if (sum > 0.f) w.row(i) /= sum;
        }
    }
}

void InterventionHooks::z(int layer, int head, Index /*first*/, Matrix& z) {
    if (std::find(iv_.ablated.begin(), iv_.ablated.end(), Site{stack_, layer, head}) ==
        iv_.ablated.end())
        return;
    if (iv_.ablation == AblationMode::Zero || z.rows() == 0) {
        z.setZero();
    } else {
        const Eigen::RowVectorXf mean = z.colwise().mean();
        z.rowwise() = mean;
    }
}

}  // namespace attn::model
