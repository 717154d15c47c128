// AttnScope core — the "lookup" lens: attention as a soft dictionary lookup. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/util/types.hpp"

namespace attn::lenses {

/// softmax(scores / τ); τ ≤ attn::kHardTemperature gives the argmax limit (ties share equally).
VectorD tempered_softmax(const VectorD& scores, double tau);

/// `count` seeded draws j ~ Categorical(α) (inverse CDF); α must be non-negative, sum > 0.
std::vector<Index> sample_categorical(const VectorD& alpha, Index count, std::uint64_t seed);

/// Hard lookups (one sampled value row per draw) against the soft one αᵀV.
struct HardLookup {
    VectorD exact;                    ///< αᵀV, the expectation of a sampled row
    std::vector<double> frequencies;  ///< per key: fraction of draws that picked it
    std::vector<Index> steps;         ///< sample counts at which the running mean was checked
    std::vector<double> errors;  ///< ‖mean of sampled rows − αᵀV‖ / ‖αᵀV‖ at each step
};

/// Draws `count` hard lookups v_j, j ~ α, and tracks the running mean against αᵀV.
HardLookup hard_lookup(const VectorD& alpha, const MatrixD& V, Index count, std::uint64_t seed);

/// The weights' shape at one temperature.
struct TemperaturePoint {
    double tau = 1, entropy = 0, max_weight = 0;
};

/// Entropy and max weight of softmax(scores/τ) for each τ (uniform as τ → ∞, argmax as τ → 0).
std::vector<TemperaturePoint> temperature_sweep(const VectorD& scores,
                                                const std::vector<double>& taus);

}  // namespace attn::lenses
