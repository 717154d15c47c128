// AttnScope core — pieces of the compute output layout shared by the in-memory writer and the
// layer-by-layer stream (result_writer.hpp describes the layout). GPL-3.0-or-later.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../session/session_json.hpp"
#include "attn/scene/scene.hpp"

namespace attn::io::detail {

/// One per-head stage of a HeadResult: a stored matrix, or a derived one (scaled, masked)
/// written into scratch.
using Stage = std::function<const Matrix&(const HeadResult&, Matrix& scratch)>;
/// The per-head stages in output order: raw, scaled, softcapped, masked, weights, output.
const std::vector<std::pair<const char*, Stage>>& stages();
/// True when a head of the scene, or of any layer of its model run, soft-caps its scores or adds
/// a position bias (ScoreStages::shaped): the softcapped stage differs from the scaled one.
bool shapes_scores(const SceneResult& r);
/// Whether stage `name` is written for a scene: those in `only` when given and not empty,
/// otherwise every stage; softcapped only when shapes_scores (else it is the scaled stage).
bool stage_written(const SceneResult& r, const char* name, const std::vector<std::string>* only);
/// The JSON document's members before "layers" (taken from the first layer).
ojson compute_json_head(const SceneResult& first);
/// One element of the JSON document's "layers" (only the named stages when `only` is given and
/// not empty).
ojson compute_json_layer(const SceneResult& layer, const std::vector<std::string>* only = nullptr);

}  // namespace attn::io::detail
