// AttnScope core — multi-head, grouped-query and cross attention. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/attention/attention.hpp"
#include "attn/attention/stats.hpp"
#include "attn/util/progress.hpp"
#include "attn/util/types.hpp"

namespace attn {

/// Shape of a multi-head layer. kv_heads = heads is MHA, 1 is MQA, anything dividing heads GQA.
struct MultiHeadConfig {
    Index d_model = 64;
    Index heads = 4;
    Index kv_heads = 0;  ///< 0 means "same as heads"
    /// d_k = d_model / heads; throws ArgumentError when heads does not divide d_model.
    Index d_k() const;
    /// Effective kv-head count (heads when kv_heads is 0); validated.
    Index kv() const;
    /// Throws ArgumentError with a clear message for any invalid combination.
    void validate() const;
};

/// Projection weights, row-vector convention: Q = X_q · W_q, K = X_kv · W_k, out = concat · W_o.
struct MultiHeadWeights {
    Matrix Wq;                             ///< d_model × d_model
    Matrix Wk;                             ///< d_model × (kv_heads · d_k)
    Matrix Wv;                             ///< d_model × (kv_heads · d_k)
    Matrix Wo;                             ///< d_model × d_model
    std::vector<ScoreParams> head_scores;  ///< per-head score parameters (W, W_a, U_a, v_a, σ)

    /// Deterministic Xavier-uniform weights and per-head score parameters from a seed.
    static MultiHeadWeights xavier(const MultiHeadConfig& config, ScoreKind kind,
                                   std::uint64_t seed, float sigma = 1.f);
};

/// Result of a multi-head layer: every stage per head plus the projections.
struct MultiHeadResult {
    std::vector<HeadResult> heads;  ///< one per query head
    Matrix Q, K, V;                 ///< projected (nq × d_model, nk × kv·d_k, nk × kv·d_k)
    Matrix concat;                  ///< nq × d_model: head outputs side by side (empty when
                                    ///< params keeps neither stages nor output, as is output)
    Matrix output;                  ///< nq × d_model: concat · W_o
    std::vector<HeadStats> stats;   ///< one per head when asked for (with_stats), else empty
    Index d_k = 0;
};

/// Multi-head attention of X_q (nq × d_model) over X_kv (nk × d_model); self-attention when they
/// are the same matrix. Heads run in parallel threads. params.score.kind selects the score; the
/// per-head matrices come from weights.head_scores.
MultiHeadResult multi_head(const Matrix& Xq, const Matrix& Xkv, const MultiHeadWeights& weights,
                           const MultiHeadConfig& config, const AttentionParams& params,
                           Progress* progress = nullptr);

/// As multi_head, but writes into `result`, reusing its buffers: repeated calls with unchanged
/// shapes allocate nothing. with_stats also fills result.stats, computed by the head's thread.
/// On an exception `result` is left partially updated.
void multi_head_into(const Matrix& Xq, const Matrix& Xkv, const MultiHeadWeights& weights,
                     const MultiHeadConfig& config, const AttentionParams& params,
                     MultiHeadResult& result, Progress* progress = nullptr,
                     bool with_stats = false);

/// Query head h's key/value head under grouped-query attention.
Index kv_head_of(Index head, Index heads, Index kv_heads);

}  // namespace attn
