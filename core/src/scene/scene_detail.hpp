// AttnScope core — internal helpers of the scene's sources (not installed). GPL-3.0-or-later.
#pragma once

#include <string>

#include "../attention/detail.hpp"
#include "attn/scene/scene.hpp"

namespace attn::detail {

/// compute_scene before the merge into words: the tokens' own attention. base: a result whose
/// tokens, inputs and projections are this spec's (restart_from says Softmax); they are
/// reused, and so are its raw scores when stored.
SceneResult compute_pieces(const SceneSpec& spec, Progress* progress, Storage storage,
                           SceneResult* recycle, int overview_cells, Index query_stride,
                           const SceneResult* base, bool outputs = true);

/// Refuses (ResourceError) a scene whose estimate_scene(spec, storage) exceeds memory_budget(),
/// before anything is allocated.
void require_scene_memory(const SceneSpec& spec, Storage storage);

/// The streamed scene of a long loaded component (comp.rows set): every head of layer `layer`
/// read row by row with the controls of params applied (raw scores) or as they are (weights),
/// into r's heads (overview and empty rows), statistics and source.
void compute_loaded_rows(const AttentionComponent& comp, const std::string& source,
                         const AttentionParams& params, float d_k, Index layer, Progress* progress,
                         SceneResult& r);

}  // namespace attn::detail
