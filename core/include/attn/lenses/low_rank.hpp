// AttnScope core — the "low-rank" lens: a bilinear score qᵀWk factorised as W ≈ W_Qᵀ W_K.
// Builds on attn/lowrank.hpp (the SVD factorisation). GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/scene/scene.hpp"
#include "attn/util/types.hpp"

namespace attn::lenses {

/// Seeded d × d bilinear matrix with N(0, 1/d) entries (full rank almost surely).
MatrixD random_bilinear(Index d, std::uint64_t seed);

/// The bilinear form a scene head applies to token vectors x, y before scaling:
/// s = x W yᵀ with W = W_Q,h W_K,gᵀ (dot) or W_Q,h W_h W_K,gᵀ (general), g = the head's kv
/// head; d_model × d_model, rank ≤ d_k. Uses spec.weights, else MultiHeadWeights::xavier with
/// the scene's seed (the seeded weights compute_scene uses). Throws ArgumentError for other
/// score kinds and for head out of range.
MatrixD scene_bilinear(const SceneSpec& spec, Index head);

/// Everything the lens shows at one rank.
struct LowRankView {
    VectorD singular_values;            ///< of W, descending
    MatrixD full_scores;                ///< Xq W Xkᵀ
    MatrixD rank_scores;                ///< Xq W_r Xkᵀ, W_r = W_Qᵀ W_K at rank r
    std::vector<double> errors;         ///< relative score error for r = 0 … min(d_s, d_h)
    std::vector<double> weight_errors;  ///< ‖W − W_r‖_F / ‖W‖_F for r = 0 … min(d_s, d_h)
    Index rank = 0;
};

/// Factorises W at rank r (clamped to [0, min(d_s, d_h)]) and scores Xq against Xk.
LowRankView low_rank_view(const MatrixD& W, const MatrixD& Xq, const MatrixD& Xk, Index r);

}  // namespace attn::lenses
