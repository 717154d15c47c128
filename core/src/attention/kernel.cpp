// AttnScope core — Nadaraya–Watson kernel regression. GPL-3.0-or-later.
#include "attn/attention/kernel.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "attn/util/error.hpp"

namespace attn {

LogKernel exp_dot_kernel(double scale) {
    return [scale](const Eigen::Ref<const Eigen::RowVectorXd>& q,
                   const Eigen::Ref<const Eigen::RowVectorXd>& k) { return scale * q.dot(k); };
}

LogKernel exp_dot_kernel_dk(Index d_k) {
    if (d_k <= 0) throw ArgumentError("exp_dot_kernel_dk: d_k must be positive.");
    return exp_dot_kernel(1.0 / std::sqrt(static_cast<double>(d_k)));
}

LogKernel rbf_kernel(double sigma) {
    if (!(sigma > 0) || !std::isfinite(sigma))
        throw ArgumentError("rbf_kernel: the bandwidth sigma must be positive and finite.");
    const double inv = 1.0 / (2.0 * sigma * sigma);
    return [inv](const Eigen::Ref<const Eigen::RowVectorXd>& q,
                 const Eigen::Ref<const Eigen::RowVectorXd>& k) {
        return -(q - k).squaredNorm() * inv;
    };
}

LogKernel log_of(std::function<double(const Eigen::Ref<const Eigen::RowVectorXd>&,
                                      const Eigen::Ref<const Eigen::RowVectorXd>&)>
                     kernel) {
    return [kernel = std::move(kernel)](const Eigen::Ref<const Eigen::RowVectorXd>& q,
                                        const Eigen::Ref<const Eigen::RowVectorXd>& k) {
        const double v = kernel(q, k);
        if (v < 0 || std::isnan(v)) throw ArgumentError("A kernel returned a negative value.");
        return v == 0 ? -std::numeric_limits<double>::infinity() : std::log(v);
    };
}

MatrixD nadaraya_watson_weights(const MatrixD& Q, const MatrixD& K, const LogKernel& kernel) {
    if (!kernel) throw ArgumentError("nadaraya_watson: no kernel was given.");
    if (Q.cols() != K.cols())
        throw ShapeError("nadaraya_watson: queries have " + std::to_string(Q.cols()) +
                         " columns but keys have " + std::to_string(K.cols()) + ".");
    if (K.rows() == 0) throw ArgumentError("nadaraya_watson: there is no key.");
    MatrixD W(Q.rows(), K.rows());
    for (Index i = 0; i < Q.rows(); ++i) {
        double top = -std::numeric_limits<double>::infinity();
        for (Index j = 0; j < K.rows(); ++j) {
            const double l = kernel(Q.row(i), K.row(j));
            if (std::isnan(l)) throw NonFiniteError("nadaraya_watson: the kernel gave NaN.");
            W(i, j) = l;
            top = std::max(top, l);
        }
        if (top == -std::numeric_limits<double>::infinity()) {  // every K = 0: no evidence
            W.row(i).setZero();
            continue;
        }
        // Max subtraction: the common factor exp(top) cancels in the ratio, so huge dot
        // products never overflow (the same trick as a stable softmax).
        for (Index j = 0; j < K.rows(); ++j)
            W(i, j) = std::exp(W(i, j) - top);
        W.row(i) /= W.row(i).sum();
    }
    return W;
}

MatrixD nadaraya_watson(const MatrixD& Q, const MatrixD& K, const MatrixD& V,
                        const LogKernel& kernel) {
    if (V.rows() != K.rows())
        throw ShapeError("nadaraya_watson: " + std::to_string(K.rows()) + " keys but " +
                         std::to_string(V.rows()) + " values.");
    return nadaraya_watson_weights(Q, K, kernel) * V;
}

VectorD nadaraya_watson_1d(const VectorD& queries, const VectorD& keys, const VectorD& values,
                           const LogKernel& kernel) {
    const MatrixD Q = queries;
    const MatrixD K = keys;
    const MatrixD V = values;
    const MatrixD out = nadaraya_watson(Q, K, V, kernel);
    return out.col(0);
}

}  // namespace attn
