// AttnScope core — the "rank-collapse" lens: pure attention stacks lose rank; residuals keep it.
// GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/util/types.hpp"

namespace attn::lenses {

/// Relative distance of X (n × d) from the nearest "all rows equal" matrix:
/// ‖X − 1 x̄ᵀ‖_F / ‖X‖_F with x̄ the mean row (0 for a zero matrix).
double rank_one_distance(const MatrixD& X);

/// Settings of the stack.
struct RankCollapseConfig {
    Index n = 16;         ///< tokens
    Index d = 32;         ///< width (d_model = d_k = d_v, one head)
    Index depth = 12;     ///< layers L
    double qk_std = 2.0;  ///< W_Q, W_K entries ~ N(0, qk_std²/d): score std ≈ qk_std² (sharpness)
    double v_std = 1.0;  ///< W_V entries ~ N(0, v_std²/d)
    /// Residual branch factor β in X ← X + β·SA(X); 0 means 1/√depth, the deep-transformer
    /// initialisation that keeps the stream's growth bounded (β = 1 lets the token mean, which
    /// every attention layer adds coherently, outgrow the rest: a slower collapse).
    double residual_scale = 0.0;
    std::uint64_t seed = 1;
};

/// Distance from rank one per depth (index 0 = the input, index l = after layer l).
struct RankCollapseCurve {
    std::vector<double> pure;      ///< X ← softmax(X W_Q (X W_K)ᵀ/√d) X W_V
    std::vector<double> residual;  ///< X ← X + β·softmax(…) X W_V (same weights)
};

/// Runs both stacks on the same seeded input and the same per-layer weights.
RankCollapseCurve rank_collapse(const RankCollapseConfig& config);

/// One layer of single-head self-attention without residual: softmax(X Wq (X Wk)ᵀ/√d) X Wv.
MatrixD self_attention_layer(const MatrixD& X, const MatrixD& Wq, const MatrixD& Wk,
                             const MatrixD& Wv);

}  // namespace attn::lenses
