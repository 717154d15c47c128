// AttnScope core — every layer of a scene, one at a time (the Model view, exports, the CLI).
// GPL-3.0-or-later.
#pragma once

#include <functional>

#include "attn/scene/scene.hpp"
#include "attn/util/progress.hpp"

namespace attn {

/// Number of layers a spec shows: the shown component's layers for loaded data, else 1.
Index layer_count(const SceneSpec& spec);

/// Computes every layer of spec in order (compute_scene with the layer switched) and hands each
/// to sink(layer, result); the result is freed before the next layer is computed. `known`, when
/// given, is spec's own result (its layer, spec.layer) and is passed on instead of computing that
/// layer again. A model scene runs its model once (or takes known's run). Progress spans all
/// layers; throws Cancelled and whatever compute_scene throws.
void for_each_layer(const SceneSpec& spec,
                    const std::function<void(Index, const SceneResult&)>& sink,
                    Progress* progress = nullptr, bool keep_stages = true,
                    const SceneResult* known = nullptr);

}  // namespace attn
