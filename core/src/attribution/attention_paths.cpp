// AttnScope core — rollout and attention flow of a model's run. GPL-3.0-or-later.
#include "attn/attribution/attention_paths.hpp"

#include <string>

#include "attn/analysis/rollout.hpp"
#include "attn/attribution/max_flow.hpp"
#include "attn/util/error.hpp"

namespace attn::attrib {

std::vector<MatrixD> mixed_layers(const model::Run& run) {
    std::vector<MatrixD> out;
    // Rollout of one layer is that layer's Â: the one rule of analysis/rollout.cpp.
    for (const model::LayerAttention& layer : run.layers)
        out.push_back(rollout(std::vector<MatrixD>{mean_heads(layer.heads)}).front());
    return out;
}

MatrixD attention_rollout(const model::Run& run) {
    std::vector<MatrixD> means;
    for (const model::LayerAttention& layer : run.layers)
        means.push_back(mean_heads(layer.heads));
    if (means.empty()) throw ArgumentError("rollout: the run has no layers");
    return rollout(means).back();
}

MatrixD attention_flow(const std::vector<MatrixD>& mixed, Progress* progress) {
    if (mixed.empty()) throw ArgumentError("attention flow: no layers");
    const Index n = mixed.front().rows(), layers = Index(mixed.size());
    FlowGraph graph((layers + 1) * n);
    for (Index l = 0; l < layers; ++l) {
        const MatrixD& a = mixed[std::size_t(l)];
        if (a.rows() != n || a.cols() != n)
            throw ShapeError("attention flow: layer " + std::to_string(l) + " is " +
                             std::to_string(a.rows()) + " × " + std::to_string(a.cols()) +
                             ", not " + std::to_string(n) + " × " + std::to_string(n));
        for (Index i = 0; i < n; ++i)
            for (Index j = 0; j < n; ++j)
                graph.add_edge(l * n + j, (l + 1) * n + i, a(i, j));
    }
    MatrixD flow(n, n);
    for (Index i = 0; i < n; ++i) {
        for (Index j = 0; j < n; ++j)
            flow(i, j) = graph.max_flow(j, layers * n + i);
        report(progress, double(i + 1) / double(n));
    }
    return flow;
}

}  // namespace attn::attrib
