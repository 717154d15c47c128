// AttnScope core — attention followed through the layers: rollout and attention flow (Abnar &
// Zuidema 2020) of a model's run. GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/models/run.hpp"
#include "attn/util/progress.hpp"

namespace attn::attrib {

/// Each layer's Â_l = ½·mean_h A^{lh} + ½·I of RUN (as analysis' rollout mixes it), L matrices n ×
/// n.
std::vector<MatrixD> mixed_layers(const model::Run& run);

/// Rollout Â_{L−1} ⋯ Â_0 of RUN (n × n; analysis' rollout, the one rule).
MatrixD attention_rollout(const model::Run& run);

/// Attention flow of MIXED (the Â_l): flow[i, j] is the maximum flow from input node j to top
/// node i in the graph of L + 1 layers of n nodes whose edge (l, j) → (l + 1, i) has capacity
/// Â_l[i, j]. n² maximum flows; PROGRESS may cancel.
MatrixD attention_flow(const std::vector<MatrixD>& mixed, Progress* progress = nullptr);

}  // namespace attn::attrib
