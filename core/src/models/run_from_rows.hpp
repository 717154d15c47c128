// AttnScope core — run_from that recomputes only the later rows (internal). GPL-3.0-or-later.
#pragma once

#include "attn/models/run.hpp"

namespace attn::model {

/// run_from(MODEL, BASE, FROM, HOOKS, nullptr, false), when HOOKS leave positions [0, FIRST) as
/// BASE has them: a causal model then computes only rows [FIRST, n) of each layer, BASE's
/// earlier rows as their past (activation patching of prompts that agree up to FIRST); a model
/// that cannot (not causal, its mask replaced, a mean ablation) runs every row. The logits are
/// left empty, as run_from's LOGITS false.
Run run_from_rows(const Model& model, const Run& base, int from, Hooks* hooks, Index first);

}  // namespace attn::model
