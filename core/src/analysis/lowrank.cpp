// AttnScope core — low-rank factorisation of a bilinear score matrix. GPL-3.0-or-later.
#include "attn/analysis/lowrank.hpp"

#include <Eigen/SVD>
#include <cmath>
#include <string>

#include "attn/util/error.hpp"

namespace attn {

namespace {

// BDCSVD switches to Jacobi for small matrices by itself and stays fast for large ones.
Eigen::BDCSVD<Eigen::MatrixXd> svd_of(const MatrixD& W, bool vectors) {
    if (!W.allFinite()) throw NonFiniteError("The bilinear matrix W has NaN or infinite entries.");
    const unsigned options = vectors ? (Eigen::ComputeThinU | Eigen::ComputeThinV) : 0u;
    return Eigen::BDCSVD<Eigen::MatrixXd>(Eigen::MatrixXd(W), options);
}

}  // namespace

MatrixD LowRankFactors::product() const {
    return Wq.transpose() * Wk;
}

VectorD singular_values(const MatrixD& W) {
    return svd_of(W, false).singularValues();
}

LowRankFactors factorize_bilinear(const MatrixD& W, Index r) {
    const Index full = std::min(W.rows(), W.cols());
    if (r < 0 || r > full)
        throw ArgumentError("factorize_bilinear: rank " + std::to_string(r) + " is outside 0.." +
                            std::to_string(full) + ".");
    const auto svd = svd_of(W, true);
    LowRankFactors f;
    f.singular_values = svd.singularValues();
    f.rank = r;
    // Split each singular value evenly (√σ on both sides) so W_Q and W_K have equal scale,
    // as trained query and key projections roughly do.
    const VectorD root = f.singular_values.head(r).cwiseSqrt();
    f.Wq = root.asDiagonal() * svd.matrixU().leftCols(r).transpose();
    f.Wk = root.asDiagonal() * svd.matrixV().leftCols(r).transpose();
    return f;
}

std::vector<double> low_rank_score_errors(const MatrixD& W, const MatrixD& Q, const MatrixD& K) {
    if (Q.cols() != W.rows() || K.cols() != W.cols())
        throw ShapeError("low_rank_score_errors: Q has " + std::to_string(Q.cols()) +
                         " columns, K has " + std::to_string(K.cols()) + ", W is " +
                         std::to_string(W.rows()) + "×" + std::to_string(W.cols()) + ".");
    const auto svd = svd_of(W, true);
    const Index full = std::min(W.rows(), W.cols());
    // Q W Kᵀ = Σ_i σ_i (Q u_i)(K v_i)ᵀ: add one rank-one term per step instead of refactoring.
    const Eigen::MatrixXd QU = Q * svd.matrixU();
    const Eigen::MatrixXd KV = K * svd.matrixV();
    const Eigen::MatrixXd S = Q * W * K.transpose();
    const double norm = S.norm();
    std::vector<double> errors(static_cast<std::size_t>(full + 1), 0.0);
    Eigen::MatrixXd residual = S;
    for (Index r = 0; r <= full; ++r) {
        if (r > 0)
            residual -= svd.singularValues()[r - 1] * QU.col(r - 1) * KV.col(r - 1).transpose();
        errors[static_cast<std::size_t>(r)] = norm > 0 ? residual.norm() / norm : 0.0;
    }
    return errors;
}

}  // namespace attn
