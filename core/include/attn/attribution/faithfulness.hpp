// AttnScope core — how faithful a token attribution is: the target's logit as the tokens it
// ranks highest are erased (ERASER's comprehensiveness), and how two attributions agree
// (Kendall's τ-b). GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/models/model.hpp"
#include "attn/util/progress.hpp"

namespace attn::attrib {

/// The positions a token attribution at POSITION of N tokens ranks: every other position, or
/// (CAUSAL, a decoder) those before it.
std::vector<Index> ranked_positions(Index n, Index position, bool causal);

/// POSITIONS ordered by |SCORES[p]|, largest first; ties: lower position first.
std::vector<Index> rank_by_magnitude(const std::vector<Index>& positions,
                                     const std::vector<double>& scores);

/// TARGET's logit at POSITION with the rows of x0 (the residual stream entering layer 0) at the
/// first k of ORDER zeroed, for k = 0 … K (past ORDER's end every ranked row stays zeroed): K + 1
/// values, [0] the clean logit. Each run keeps CONTROLS; PROGRESS may cancel.
std::vector<double> erasure_curve(const model::Model& model, const std::vector<std::int32_t>& ids,
                                  const model::RunControls& controls, Index position,
                                  std::int32_t target, const std::vector<Index>& order, int k_max,
                                  Progress* progress = nullptr);

/// Kendall's τ-b of A and B (equal lengths): (concordant − discordant) / √((n₀ − t_a)(n₀ − t_b))
/// with ties counted per variable; NaN when either is constant or fewer than two values.
double kendall_tau_b(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace attn::attrib
