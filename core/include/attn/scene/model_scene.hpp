// AttnScope core — a model run as a scene: the shown layer's stages as computed inside the run.
// GPL-3.0-or-later.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attn/models/model.hpp"
#include "attn/models/run.hpp"
#include "attn/models/run_inputs.hpp"
#include "attn/scene/scene.hpp"

namespace attn::model {

/// Whether the scene's scale, temperature and mask apply in layer L of its model run.
bool controls_apply_in(const SceneSpec& spec, Index layer);

/// The run controls a scene asks for: its scale, temperature and mask in spec.model_layers.
RunControls run_controls(const SceneSpec& spec);

/// The run of spec.model on spec.text with run_controls(spec). The last few runs are kept, so a
/// spec differing only in the shown layer, head or display reuses its run; PROGRESS may cancel.
/// Throws ArgumentError for an empty text, a layer out of range or more tokens than positions.
std::shared_ptr<const Run> scene_run(const SceneSpec& spec, Progress* progress = nullptr);

/// Forgets the kept runs (their memory goes now, not when the next runs replace them).
void release_runs();

/// The scene of a model run: layer spec.layer's heads with every stage as computed inside the
/// run (layers outside spec.model_layers as the model computes them: scaled, τ = 1, its own
/// mask), the
/// real q, k, v, the whole run and the ten likeliest next tokens.
SceneResult model_scene(const SceneSpec& spec, Progress* progress = nullptr);

/// The K likeliest next tokens after RUN, a run of FOLDER's model (softmax of its logits over
/// the ids a text stands for: no padding id, see vocabulary.hpp), likeliest first.
std::vector<NextToken> top_next_tokens(const Run& run, const ModelFolder& folder, int k = 10);

}  // namespace attn::model
