// AttnScope core — the "scaling" lens: why scores are divided by √d_k. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/util/types.hpp"

namespace attn::lenses {

/// Samples of q·k for q, k with i.i.d. N(0, 1) entries at width d_k.
struct DotSamples {
    Index d_k = 0;
    std::vector<double> unscaled;  ///< q·k (variance d_k in theory)
    std::vector<double> scaled;    ///< q·k / √d_k (variance 1 in theory)
};

/// `count` seeded samples of q·k at width d_k, with and without the 1/√d_k factor.
DotSamples sample_dot_products(Index d_k, Index count, std::uint64_t seed);

/// Frobenius norm of the softmax Jacobian ∂α/∂s = diag(α) − ααᵀ, in closed form
/// √(Σα² − 2Σα³ + (Σα²)²). It vanishes as α tends to one-hot (a saturated softmax).
double softmax_jacobian_norm(const VectorD& alpha);

/// One d_k of the sweep: sample variance of q·k and the softmax's behaviour over n keys.
struct ScalingPoint {
    Index d_k = 0;
    double var_unscaled = 0, var_scaled = 0;            ///< measured Var(q·k), Var(q·k/√d_k)
    double max_unscaled = 0, max_scaled = 0;            ///< mean max_j α_j
    double entropy_unscaled = 0, entropy_scaled = 0;    ///< mean row entropy (nats)
    double jacobian_unscaled = 0, jacobian_scaled = 0;  ///< mean ‖diag(α) − ααᵀ‖_F
};

/// Settings of the d_k sweep.
struct ScalingConfig {
    std::vector<Index> d_ks;  ///< widths to visit (empty: 1, 2, 4, …, 512)
    Index keys = 32;          ///< n keys per softmax row
    Index trials = 64;        ///< rows (one query + n keys each) averaged per d_k
    std::uint64_t seed = 1;
};

/// For each d_k: random unit-variance q and n keys, softmax of q·k with and without 1/√d_k.
std::vector<ScalingPoint> scaling_sweep(const ScalingConfig& config);

}  // namespace attn::lenses
