// AttnScope core — the generic forward pass: every family's layers, the controls in their
// scope, the hooks, prefix reuse. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "attn/models/model.hpp"
#include "attn/util/progress.hpp"

namespace attn::model {

/// The result of running a sequence of token ids.
struct Run {
    std::vector<std::int32_t> ids;
    std::vector<LayerAttention> layers;
    Vector logits;              ///< logits at logits_position, [vocab]
    Index logits_position = 0;  ///< the last position, or (BERT) the first [MASK]
    /// The residual stream entering each layer and leaving the last (layers + 1 of n × d):
    /// what a later run sharing a prefix of ids reuses, and what the logit lens reads.
    std::vector<Matrix> inputs;
    Index reused = 0;      ///< leading positions taken from an earlier run
    RunControls controls;  ///< what the run applied
};

/// The attention of layer L of MODEL (Model::layer_params) under CONTROLS, inside their scope:
/// scaling on or off, the temperature, and the mask (a family's causal window stays when the
/// mask asked for is the plain causal one: it is that family's causal mask).
LayerControls layer_controls(const Model& model, const RunControls& controls, int l);

/// Runs IDS through every layer of MODEL with CONTROLS applied inside the run (so later layers
/// and the logits see their effect) and CONTROLS.interventions as hooks, then HOOKS (optional).
/// PROGRESS is told after each layer and may cancel (attn::Cancelled). PREFIX, an earlier run of
/// this model with equal controls, lends the positions it shares at the start when the model
/// is causal and no extra HOOKS are given: a retyped last word, or the next generated token,
/// recomputes only its own rows (the key–value cache). LOGITS_AT picks the logits' position
/// (default: the last). Throws ArgumentError for ids or layers out of range.
Run run(const Model& model, const std::vector<std::int32_t>& ids, const RunControls& controls = {},
        Hooks* hooks = nullptr, Progress* progress = nullptr, const Run* prefix = nullptr,
        std::optional<Index> logits_at = {});

/// Throws ArgumentError as run does for IDS (none, too many, outside the vocabulary) or
/// CONTROLS (layers, temperature, interventions) that MODEL cannot run.
void check_run(const Model& model, const std::vector<std::int32_t>& ids,
               const RunControls& controls);

/// Runs layers [from, L) of MODEL again on BASE's residual stream entering layer FROM (BASE's
/// layers before FROM are kept): what activation patching of a late layer needs. HOOKS as run.
/// LOGITS false leaves run.logits empty: a caller that reads two tokens' logits through
/// final_norm and unembedding (patching) skips the whole output head.
Run run_from(const Model& model, const Run& base, int from, Hooks* hooks = nullptr,
             Progress* progress = nullptr, bool logits = true);

/// The one attention core of every family for one head: attend(Q, K, V, PARAMS) over every
/// query, then the hooks' pattern (the output recomputed when it changed the weights) and z
/// on rows [first, n). Returns the head's stages; *Z gets rows [first, n) of its output.
HeadResult attend_head(const Matrix& q, const Matrix& k, const Matrix& v,
                       const AttentionParams& params, int layer, int head, Index first,
                       Hooks& hooks, Matrix& z);

}  // namespace attn::model
