// AttnScope core — kernel regression (Nadaraya–Watson): attention as a smoother.
// GPL-3.0-or-later.
#pragma once

#include <functional>

#include "attn/util/types.hpp"

namespace attn {

/// A log-kernel: log K(q, k) for one query row and one key row (−inf where K = 0). Kernels are
/// given in log form so that exp-dot kernels with huge scores stay finite (max subtraction).
using LogKernel = std::function<double(const Eigen::Ref<const Eigen::RowVectorXd>& q,
                                       const Eigen::Ref<const Eigen::RowVectorXd>& k)>;

/// log of the exponential dot kernel K(q, k) = exp(scale · q·k); softmax attention's kernel.
LogKernel exp_dot_kernel(double scale);

/// log of the exponential dot kernel with scale 1/√d_k: exp(q·k/√d_k).
LogKernel exp_dot_kernel_dk(Index d_k);

/// log of the Gaussian RBF kernel K(q, k) = exp(−‖q − k‖² / (2σ²)); throws when σ ≤ 0.
LogKernel rbf_kernel(double sigma);

/// Wraps a plain (non-negative) kernel K(q, k) as a LogKernel.
LogKernel log_of(std::function<double(const Eigen::Ref<const Eigen::RowVectorXd>&,
                                      const Eigen::Ref<const Eigen::RowVectorXd>&)>
                     kernel);

/// Nadaraya–Watson weights: W(i, j) = K(q_i, k_j) / Σ_j K(q_i, k_j) (Q nq×d, K nk×d). A row with
/// zero total weight is all zeros (the same convention as a fully masked attention row).
MatrixD nadaraya_watson_weights(const MatrixD& Q, const MatrixD& K, const LogKernel& kernel);

/// Nadaraya–Watson estimate ŷ(q_i) = Σ_j K(q_i, k_j) v_j / Σ_j K(q_i, k_j) (V nk×d_v); a row with
/// zero total weight gives a zero output. Throws ShapeError/ArgumentError on bad inputs.
MatrixD nadaraya_watson(const MatrixD& Q, const MatrixD& K, const MatrixD& V,
                        const LogKernel& kernel);

/// One-dimensional NW curve: keys x_j with scalar values y_j, evaluated at each query position.
VectorD nadaraya_watson_1d(const VectorD& queries, const VectorD& keys, const VectorD& values,
                           const LogKernel& kernel);

}  // namespace attn
