// AttnScope core — the sentences that say in which layers of a model run the controls apply:
// one rule for the banner, the math panel's note and the undo step. GPL-3.0-or-later.
#pragma once

#include <string>
#include <vector>

#include "attn/models/model.hpp"
#include "attn/scene/scene.hpp"

namespace attn::model {

/// Where the controls apply, for LAYERS (spec.model_layers, from 0; empty: every layer), counted
/// from 1: "in every layer", "in layer 2 only", "in layers 2 and 4 only", "in layers 1, 2 and 4
/// only".
std::string scope_phrase(const std::vector<int>& layers);

/// How INFO's family computes a layer outside the controls' scope: "scaled, τ = 1, causal",
/// "… causal, a window of 4096 keys" (a sliding window), "… bidirectional".
std::string own_controls_text(const ModelInfo& info);

/// Why the controls seem not to act on layer LAYER of SPEC's model run, naming its family and
/// the scope as scope_phrase does ("Layer 3 runs as Qwen2 does (scaled, τ = 1, causal) but sees
/// the change in layer 2: the controls apply in layer 2 only."); "" when they apply there or SPEC
/// is no model run.
std::string scope_note(const SceneSpec& spec, Index layer);

}  // namespace attn::model
