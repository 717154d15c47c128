// AttnScope core — linear attention with positive random features (Performer's FAVOR+).
// GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/util/types.hpp"

namespace attn::lenses {

/// m × d Gaussian projection ω₁ … ω_m; orthogonal = true draws them in blocks of d mutually
/// orthogonal rows (QR of a Gaussian matrix) with chi-distributed norms, as FAVOR+ suggests.
MatrixD random_projection(Index m, Index d, bool orthogonal, std::uint64_t seed);

/// Logarithms of the positive features of each row of X (n × d): Ωx − ‖x‖²/2, so that
/// φ(x) = exp(Ωx − ‖x‖²/2)/√m has E[φ(q)·φ(k)] = exp(q·k). Kept in log form so the caller can
/// shift before exponentiating (see favor_attention).
MatrixD positive_features(const MatrixD& X, const MatrixD& omega);

/// Linear-time estimate of softmax(QKᵀ/√d)V: φ(Q')(φ(K')ᵀV) / φ(Q')(φ(K')ᵀ1) with
/// Q' = Q/d^¼, K' = K/d^¼ and m random features (non-causal).
MatrixD favor_attention(const MatrixD& Q, const MatrixD& K, const MatrixD& V, Index features,
                        bool orthogonal, std::uint64_t seed);

/// Error ‖O_favor − O_exact‖_F/‖O_exact‖_F at one feature count, averaged over seeds.
struct FavorPoint {
    Index features = 0;
    double mean_error = 0, min_error = 0, max_error = 0;
    double mean_value_error = 0;  ///< mean of ‖O_favor − O_exact‖_F / ‖V‖_F
};

/// Averages the FAVOR+ error over `seeds` draws for each feature count.
std::vector<FavorPoint> favor_error_curve(const MatrixD& Q, const MatrixD& K, const MatrixD& V,
                                          const std::vector<Index>& features, Index seeds,
                                          bool orthogonal, std::uint64_t seed);

/// Least-squares slope of log(mean value error) against log(features) over a curve: −½ is the
/// Monte-Carlo rate 1/√m.
double favor_convergence_slope(const std::vector<FavorPoint>& curve);

/// The largest ‖q′ + k′‖² over query–key pairs (q′ = q/d^¼, k′ = k/d^¼). One positive random
/// feature estimates exp(q′·k′) with relative variance e^{‖q′+k′‖²} − 1, so the error only
/// falls like 1/√m once m is well above that: with larger norms the curve is flatter first.
double favor_variance_exponent(const MatrixD& Q, const MatrixD& K);

}  // namespace attn::lenses
