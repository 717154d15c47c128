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

/// The ids a model scene runs (SceneSpec::run_ids), checked: ArgumentError for a scene without
/// a model, an empty text or more tokens than the model's positions.
std::vector<std::int32_t> checked_run_ids(const SceneSpec& spec);

/// The run of spec.model on IDS (checked_run_ids(spec)) with run_controls(spec), computed afresh:
/// core keeps no runs (the application's run cache, app/model/run_cache, does). PREFIX, a run
/// of the same model, lends the hidden states of the start its ids share with IDS when its
/// controls are the same; PROGRESS may cancel. Refuses (ResourceError) a run over the budget.
std::shared_ptr<const Run> compute_run(const SceneSpec& spec, const std::vector<std::int32_t>& ids,
                                       Progress* progress = nullptr, const Run* prefix = nullptr);

/// compute_run(spec, checked_run_ids(spec), progress, prefix).
std::shared_ptr<const Run> scene_run(const SceneSpec& spec, Progress* progress = nullptr,
                                     const Run* prefix = nullptr);

/// The scene of a model run: layer spec.layer's heads with every stage as computed inside the
/// run (layers outside spec.model_layers as the model computes them: scaled, τ = 1, its own
/// mask), the real q, k, v, the whole run and the ten likeliest next tokens. The run is
/// computed afresh (scene_run).
SceneResult model_scene(const SceneSpec& spec, Progress* progress = nullptr);

/// The scene of RUN, a run of spec's model with spec's ids and controls (scene_run(spec)), as
/// model_scene(spec) makes it: no model runs.
SceneResult model_scene(const SceneSpec& spec, std::shared_ptr<const Run> run);

/// compute_scene(spec, …, storage) of a model scene whose run is RUN (scene_run(spec)): the
/// memory check, model_scene(spec, run) and the merge into words, without running the model.
SceneResult run_scene(const SceneSpec& spec, std::shared_ptr<const Run> run,
                      Storage storage = Storage::Stages);

/// The K likeliest next tokens after RUN, a run of FOLDER's model (softmax of its logits over
/// the ids a text stands for: no padding id, see vocabulary.hpp), likeliest first.
std::vector<NextToken> top_next_tokens(const Run& run, const ModelFolder& folder, int k = 10);

}  // namespace attn::model
