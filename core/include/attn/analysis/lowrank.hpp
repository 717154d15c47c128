// AttnScope core — low-rank factorisation of a bilinear score matrix. GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/util/types.hpp"

namespace attn {

/// W ≈ W_Qᵀ W_K at rank r, from the SVD W = U Σ Vᵀ: W_Q = √Σ_r U_rᵀ, W_K = √Σ_r V_rᵀ.
struct LowRankFactors {
    MatrixD Wq;               ///< r × d_s (query side)
    MatrixD Wk;               ///< r × d_h (key side)
    VectorD singular_values;  ///< all min(d_s, d_h) singular values of W, descending
    Index rank = 0;           ///< r
    /// The rank-r approximation W_r = W_Qᵀ W_K (d_s × d_h).
    MatrixD product() const;
};

/// Singular values of W, descending.
VectorD singular_values(const MatrixD& W);

/// Best rank-r factorisation of W (d_s × d_h), 0 ≤ r ≤ min(d_s, d_h) (Eckart–Young optimal in
/// Frobenius norm); throws ArgumentError for r outside that range or a non-finite W.
LowRankFactors factorize_bilinear(const MatrixD& W, Index r);

/// Relative score errors ‖Q W Kᵀ − Q W_r Kᵀ‖_F / ‖Q W Kᵀ‖_F for r = 0 … min(d_s, d_h) (entry r is
/// rank r; entry 0 is 1 unless the scores are all zero). Q is n × d_s, K is m × d_h. When the
/// full scores are zero every entry is 0. The last entry is 0 up to rounding. The sequence is
/// non-increasing when QᵀQ and KᵀK are multiples of I (Eckart–Young: the tail singular values);
/// for other Q, K the rank-one terms are not orthogonal and it usually, not always, decreases.
/// Throws ShapeError on mismatched shapes.
std::vector<double> low_rank_score_errors(const MatrixD& W, const MatrixD& Q, const MatrixD& K);

}  // namespace attn
