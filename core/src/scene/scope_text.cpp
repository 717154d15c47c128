// AttnScope core — the controls' layer scope in words. GPL-3.0-or-later.
#include "attn/scene/scope_text.hpp"

#include <algorithm>

#include "attn/scene/model_scene.hpp"

namespace attn::model {
namespace {

/// "2", "2 and 4", "1, 2 and 4": LAYERS (from 0) counted from 1.
std::string layer_list(const std::vector<int>& layers) {
    std::string out;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        if (i > 0) out += i + 1 == layers.size() ? " and " : ", ";
        out += std::to_string(layers[i] + 1);
    }
    return out;
}

/// "layer 2" or "layers 2 and 4".
std::string layers_named(const std::vector<int>& layers) {
    return (layers.size() == 1 ? "layer " : "layers ") + layer_list(layers);
}

}  // namespace

std::string scope_phrase(const std::vector<int>& layers) {
    if (layers.empty()) return "in every layer";
    std::vector<int> sorted = layers;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    return "in " + layers_named(sorted) + " only";
}

std::string own_controls_text(const ModelInfo& info) {
    std::string mask = "bidirectional";
    if (info.causal)
        mask = info.sliding_window > 0
                   ? "causal, a window of " + std::to_string(info.sliding_window) + " keys"
                   : "causal";
    return "scaled, τ = 1, " + mask;
}

std::string scope_note(const SceneSpec& spec, Index layer) {
    if (!spec.is_model() || controls_apply_in(spec, layer)) return {};
    std::vector<int> earlier;
    for (int l : spec.model_layers)
        if (l < layer) earlier.push_back(l);
    std::sort(earlier.begin(), earlier.end());
    earlier.erase(std::unique(earlier.begin(), earlier.end()), earlier.end());
    const ModelInfo& info = spec.model->model->info();
    std::string note = "Layer " + std::to_string(layer + 1) + " runs as " + info.display +
                       " does (" + own_controls_text(info) + ")";
    if (!earlier.empty()) note += " but sees the change in " + layers_named(earlier);
    return note + ": the controls apply " + scope_phrase(spec.model_layers) + ".";
}

}  // namespace attn::model
