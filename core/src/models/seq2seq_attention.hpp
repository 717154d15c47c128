// AttnScope core — the attention every encoder–decoder family runs: q, k, v and o projections,
// heads over kept keys and values (a decoder's cache, or the source for cross-attention), an
// optional per-head score bias (T5's relative positions), causal or not. GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/blocks/projections.hpp"
#include "attn/models/seq2seq.hpp"

namespace attn::model {

/// One attention block's projections ([heads · head_dim, d] for q, k, v; [d, heads · head_dim]
/// for o), with or without biases.
struct AttentionProjections {
    blocks::TensorLinear q, k, v, o;
};

/// The keys and values of X's rows through P, per head.
KeyValues project_keys(const AttentionProjections& p, const Matrix& x, int heads, int head_dim);

/// Attention of X's rows (positions FIRST, FIRST + 1, …) over KV: per head, scores
/// STEP's multiplier · q·kᵀ (+ BIAS[h], rows × keys, when given), keys past the query hidden when
/// CAUSAL, softmax, STEP's hooks' pattern, · v (zero for STEP's ablated heads), STEP's hooks'
/// z; the heads side by side through o.
/// WEIGHTS (when given) gets each head's.
Matrix attend_keys(const AttentionProjections& p, const Matrix& x, const KeyValues& kv, int heads,
                   int head_dim, const HeadStep& step, const std::vector<Matrix>* bias, bool causal,
                   Index first, std::vector<Matrix>* weights);

/// Self-attention of X's rows at positions [FIRST, …): their keys and values appended to KV
/// (empty for an encoder), then attend_keys over all of them.
Matrix self_attend(const AttentionProjections& p, const Matrix& x, KeyValues& kv, int heads,
                   int head_dim, const HeadStep& step, const std::vector<Matrix>* bias, bool causal,
                   Index first, std::vector<Matrix>* weights);

}  // namespace attn::model
