// AttnScope core — the "cost" lens: FLOPs of attention vs projections, and the KV cache.
// GPL-3.0-or-later.
//
// Counting rules: a product of an a×b and a b×c matrix costs 2·a·b·c FLOPs (one multiply-add
// = 2 FLOPs); biases, scaling, softmax and the masking are not in the matrix-product totals.
// The softmax is reported separately at 5 FLOPs per score (scale, subtract max, exp, sum,
// divide; exp counted as one FLOP). One layer, one sequence, self-attention, n queries = n keys.
#pragma once

#include <cstdint>

#include "attn/util/types.hpp"

namespace attn::lenses {

/// FLOPs of one multi-head (or grouped-query) self-attention layer.
struct LayerFlops {
    double q_proj = 0;   ///< X W_Q: 2·n·d·d
    double kv_proj = 0;  ///< X W_K and X W_V: 2 · 2·n·d·(kv·d_k)
    double o_proj = 0;   ///< concat · W_O: 2·n·d·d
    double scores = 0;   ///< Q Kᵀ over all heads: h · 2·n·n·d_k = 2·n²·d
    double mix = 0;      ///< A V over all heads: h · 2·n·n·d_k = 2·n²·d
    double softmax = 0;  ///< 5 · h · n² (not in matmul())
    /// q_proj + kv_proj + o_proj.
    double projections() const { return q_proj + kv_proj + o_proj; }
    /// scores + mix: the n² part.
    double attention() const { return scores + mix; }
    /// Every matrix product: projections() + attention(); independent of the head count for MHA.
    double matmul() const { return projections() + attention(); }
};

/// FLOPs of one layer at sequence length n (kv_heads = 0 means heads, i.e. MHA).
LayerFlops attention_flops(Index n, Index d_model, Index heads, Index kv_heads = 0);

/// The n at which attention() equals projections(): n* = projections per token / (4·d)
/// (2·d_model for MHA).
double crossover_length(Index d_model, Index heads, Index kv_heads = 0);

/// A KV cache: keys and values of every layer for every cached position.
struct KvCacheConfig {
    Index layers = 12;
    Index n = 1024;  ///< cached positions (context length)
    Index d_model = 768;
    Index heads = 12;
    Index kv_heads = 0;         ///< 0 = heads (MHA); 1 = MQA; a divisor of heads = GQA
    Index bytes_per_value = 2;  ///< 2 for fp16/bf16, 4 for fp32, 1 for int8
    Index batch = 1;
};

/// Bytes of the cache: 2 (K and V) · layers · batch · n · kv_heads · d_k · bytes_per_value.
std::uint64_t kv_cache_bytes(const KvCacheConfig& config);

}  // namespace attn::lenses
