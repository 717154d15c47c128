// AttnScope core — every layer of a scene, one at a time. GPL-3.0-or-later.
#include "attn/scene/scene_layers.hpp"

#include <algorithm>

#include "attn/models/model.hpp"
#include "attn/scene/model_scene.hpp"

namespace attn {

Index layer_count(const SceneSpec& spec) {
    if (spec.is_model() && spec.model->model) return spec.model->model->info().layers;
    if (!spec.is_loaded() || spec.data->components.empty()) return 1;
    const auto c = static_cast<std::size_t>(
        std::clamp<Index>(spec.component, 0, Index(spec.data->components.size()) - 1));
    return std::max<Index>(1, spec.data->components[c].layers);
}

void for_each_layer(const SceneSpec& spec,
                    const std::function<void(Index, const SceneResult&)>& sink, Progress* progress,
                    bool keep_stages, const SceneResult* known) {
    const Index layers = layer_count(spec);
    SceneSpec layer_spec = spec;
    // A model runs once for all its layers: known's run, else one run now (its progress the
    // first 90 %), each layer then read out of it.
    std::shared_ptr<const model::Run> run;
    double start = 0;
    if (spec.is_model()) {
        run = known ? known->run : nullptr;
        if (!run) {
            PartProgress part(progress, 0, 0.9);
            run = model::scene_run(spec, progress ? &part : nullptr);
            start = 0.9;
        }
    }
    const auto at = [&](double f) { return start + (1 - start) * f; };
    for (Index l = 0; l < layers; ++l) {
        report(progress, at(double(l) / double(layers)));
        const bool layered = !spec.is_synthetic();
        const bool is_known = known && (layered ? spec.layer == l : l == 0);
        if (is_known) {
            sink(l, *known);
            continue;
        }
        if (layered) layer_spec.layer = l;
        PartProgress part(progress, at(double(l) / double(layers)),
                          at(double(l + 1) / double(layers)));
        // Without the stages, a long computed scene is streamed: nothing n × n at all.
        const Storage storage = keep_stages                              ? Storage::Stages
                                : storage_for(spec) == Storage::Streamed ? Storage::Streamed
                                                                         : Storage::Weights;
        sink(l, run ? model::run_scene(layer_spec, run, storage)
                    : compute_scene(layer_spec, progress ? &part : nullptr, storage));
    }
    if (progress) progress->update(1.0);
}

}  // namespace attn
