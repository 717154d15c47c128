// AttnScope core — attention rollout across layers. GPL-3.0-or-later.
#include "attn/analysis/rollout.hpp"

#include <string>

#include "attn/analysis/census.hpp"
#include "attn/scene/scene_layers.hpp"
#include "attn/util/error.hpp"

namespace attn {
namespace {

/// Â = 0.5·M + 0.5·I with its rows renormalised (a fully masked row of M keeps only I).
MatrixD residual_mix(const MatrixD& mean) {
    MatrixD a = 0.5 * mean + 0.5 * MatrixD::Identity(mean.rows(), mean.cols());
    for (Index i = 0; i < a.rows(); ++i) {
        const double s = a.row(i).sum();
        if (s > 0) a.row(i) /= s;
    }
    return a;
}

}  // namespace

MatrixD mean_heads(const std::vector<HeadResult>& heads) {
    if (heads.empty()) throw ArgumentError("rollout: a layer has no heads");
    if (heads[0].streamed())
        throw ArgumentError(
            "rollout needs every weight of every head; this scene is too long to hold them (it "
            "is streamed): use a shorter text.");
    MatrixD m = MatrixD::Zero(heads[0].weights.rows(), heads[0].weights.cols());
    for (const auto& h : heads) {
        if (h.weights.rows() != m.rows() || h.weights.cols() != m.cols())
            throw ShapeError("rollout: the heads of a layer have different shapes");
        m += h.weights.cast<double>();
    }
    return m / static_cast<double>(heads.size());
}

std::vector<MatrixD> rollout(const std::vector<MatrixD>& layer_means) {
    std::vector<MatrixD> out;
    out.reserve(layer_means.size());
    for (const MatrixD& m : layer_means) {
        if (m.rows() != m.cols() || (!out.empty() && m.rows() != out.back().rows()))
            throw ShapeError("rollout: layer " + std::to_string(out.size()) + " is " +
                             std::to_string(m.rows()) + " × " + std::to_string(m.cols()) +
                             "; every layer must be the same square size");
        const MatrixD a = residual_mix(m);
        out.push_back(out.empty() ? a : MatrixD(a * out.back()));
    }
    return out;
}

void RolloutAccumulator::add(const SceneResult& layer) {
    require_self_attention(layer, "rollout");
    const MatrixD a = residual_mix(mean_heads(layer.heads));
    if (!rolled_.empty() && a.rows() != rolled_.back().rows())
        throw ShapeError("rollout: the layers have different sizes");
    rolled_.push_back(rolled_.empty() ? a : MatrixD(a * rolled_.back()));
}

std::vector<MatrixD> rollout(const SceneSpec& spec, Progress* progress) {
    RolloutAccumulator acc;
    // Weights are all rollout reads: the score stages need not be kept.
    for_each_layer(
        spec, [&](Index, const SceneResult& r) { acc.add(r); }, progress, false);
    return acc.layers();
}

}  // namespace attn
