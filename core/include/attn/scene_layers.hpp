// AttnScope core — every layer of a scene, one after the other. GPL-3.0-or-later.
#pragma once

#include <functional>

#include "attn/progress.hpp"
#include "attn/scene.hpp"

namespace attn {

/// Number of layers a spec shows: the chosen component's layers, 1 for computed scenes.
Index layer_count(const SceneSpec& spec);

/// Calls sink(layer, result) for every layer of spec in order, each computed by compute_scene
/// with the layer switched (controls applied). keep_stages as in compute_scene. Progress is
/// reported over the whole; attn::Cancelled when it asks to stop.
void for_each_layer(const SceneSpec& spec,
                    const std::function<void(Index, const SceneResult&)>& sink,
                    Progress* progress = nullptr, bool keep_stages = true);

}  // namespace attn
