// AttnScope core — FAVOR+ linear attention. GPL-3.0-or-later.
#include "attn/lenses/favor.hpp"

#include <algorithm>
#include <cmath>

#include "attn/lenses/common.hpp"
#include "attn/lenses/reference.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace attn::lenses {

MatrixD random_projection(Index m, Index d, bool orthogonal, std::uint64_t seed) {
    if (m < 1 || d < 1) throw ArgumentError("random_projection needs m, d ≥ 1.");
    Rng rng(seed);
    if (!orthogonal) return rng.normal_matrix(m, d).cast<double>();
    MatrixD omega(m, d);
    for (Index r0 = 0; r0 < m; r0 += d) {
        const Index rows = std::min(d, m - r0);
        const MatrixD G = rng.normal_matrix(d, d).cast<double>();
        const Eigen::HouseholderQR<Eigen::MatrixXd> qr(G);
        const Eigen::MatrixXd Qm = qr.householderQ() * Eigen::MatrixXd::Identity(d, d);
        for (Index i = 0; i < rows; ++i) {
            // Norm of a Gaussian d-vector, so each row keeps the marginal law of N(0, I).
            const double norm = rng.normal_matrix(1, d).cast<double>().norm();
            omega.row(r0 + i) = Qm.col(i).transpose() * norm;
        }
    }
    return omega;
}

MatrixD positive_features(const MatrixD& X, const MatrixD& omega) {
    if (X.cols() != omega.cols()) throw ShapeError("positive_features: widths differ.");
    MatrixD P = X * omega.transpose();
    const VectorD half_sq = X.rowwise().squaredNorm() * 0.5;
    P.colwise() -= half_sq;
    return P;  // log-features; the caller exponentiates after its stabilising shift
}

MatrixD favor_attention(const MatrixD& Q, const MatrixD& K, const MatrixD& V, Index features,
                        bool orthogonal, std::uint64_t seed) {
    if (Q.cols() != K.cols() || K.rows() != V.rows())
        throw ShapeError("favor_attention: Q, K, V shapes do not fit.");
    const double d = static_cast<double>(Q.cols());
    const double s = 1.0 / std::pow(d, 0.25);
    const MatrixD omega = random_projection(features, Q.cols(), orthogonal, seed);
    MatrixD lq = positive_features(Q * s, omega), lk = positive_features(K * s, omega);
    // A per-query shift cancels between numerator and denominator; keys need one global shift.
    for (Index i = 0; i < lq.rows(); ++i)
        lq.row(i).array() -= lq.row(i).maxCoeff();
    lk.array() -= lk.maxCoeff();
    const MatrixD fq = lq.array().exp(), fk = lk.array().exp();  // 1/√m cancels too
    const MatrixD kv = fk.transpose() * V;                       // m × d_v
    const VectorD ksum = fk.colwise().sum().transpose();         // m
    const VectorD denom = fq * ksum;
    MatrixD out = fq * kv;
    for (Index i = 0; i < out.rows(); ++i)
        if (denom(i) > 0) out.row(i) /= denom(i);
    return out;
}

std::vector<FavorPoint> favor_error_curve(const MatrixD& Q, const MatrixD& K, const MatrixD& V,
                                          const std::vector<Index>& features, Index seeds,
                                          bool orthogonal, std::uint64_t seed) {
    if (seeds < 1) throw ArgumentError("favor_error_curve needs at least one seed.");
    const MatrixD exact = exact_attention(Q, K, V);
    std::vector<FavorPoint> out;
    for (Index m : features) {
        FavorPoint p;
        p.features = m;
        p.min_error = INFINITY;
        for (Index t = 0; t < seeds; ++t) {
            const auto sd = derive_seed(seed, static_cast<std::uint64_t>(m * 1000 + t));
            const MatrixD approx = favor_attention(Q, K, V, m, orthogonal, sd);
            const double e = relative_error(approx, exact);
            p.mean_value_error += (approx - exact).norm() / std::max(1e-300, V.norm());
            p.mean_error += e;
            p.min_error = std::min(p.min_error, e);
            p.max_error = std::max(p.max_error, e);
        }
        p.mean_error /= static_cast<double>(seeds);
        p.mean_value_error /= static_cast<double>(seeds);
        out.push_back(p);
    }
    return out;
}

double favor_convergence_slope(const std::vector<FavorPoint>& curve) {
    if (curve.size() < 2) throw ArgumentError("favor_convergence_slope needs two points.");
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const FavorPoint& p : curve) {
        if (p.features < 1 || !(p.mean_value_error > 0))
            throw ArgumentError("favor_convergence_slope needs positive features and errors.");
        const double x = std::log(static_cast<double>(p.features)),
                     y = std::log(p.mean_value_error);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    const double n = static_cast<double>(curve.size());
    const double det = n * sxx - sx * sx;
    if (det <= 0) throw ArgumentError("favor_convergence_slope needs two feature counts.");
    return (n * sxy - sx * sy) / det;
}

double favor_variance_exponent(const MatrixD& Q, const MatrixD& K) {
    if (Q.cols() != K.cols()) throw ShapeError("favor_variance_exponent: widths differ.");
    // ‖q+k‖² = ‖q‖² + ‖k‖² + 2q·k, scaled by (d^-¼)² = 1/√d.
    const double s = 1.0 / std::sqrt(static_cast<double>(Q.cols()));
    const VectorD qn = Q.rowwise().squaredNorm(), kn = K.rowwise().squaredNorm();
    const MatrixD dots = Q * K.transpose();
    double best = 0;
    for (Index i = 0; i < Q.rows(); ++i)
        for (Index j = 0; j < K.rows(); ++j)
            best = std::max(best, s * (qn(i) + kn(j) + 2 * dots(i, j)));
    return best;
}

}  // namespace attn::lenses
