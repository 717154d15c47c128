// AttnScope core — the "rank-collapse" lens. GPL-3.0-or-later.
#include "attn/lenses/rank_collapse.hpp"

#include <algorithm>
#include <cmath>

#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace attn::lenses {

double rank_one_distance(const MatrixD& X) {
    const double norm = X.norm();
    if (norm == 0) return 0;
    const Eigen::RowVectorXd mean = X.colwise().mean();
    return (X.rowwise() - mean).norm() / norm;
}

MatrixD self_attention_layer(const MatrixD& X, const MatrixD& Wq, const MatrixD& Wk,
                             const MatrixD& Wv) {
    const MatrixD Q = X * Wq, K = X * Wk, V = X * Wv;
    MatrixD S = (Q * K.transpose()) / std::sqrt(static_cast<double>(Q.cols()));
    for (Index i = 0; i < S.rows(); ++i) {
        S.row(i).array() -= S.row(i).maxCoeff();
        S.row(i) = S.row(i).array().exp();
        S.row(i) /= S.row(i).sum();
    }
    return S * V;
}

RankCollapseCurve rank_collapse(const RankCollapseConfig& c) {
    if (c.n < 2 || c.d < 1 || c.depth < 0 || !(c.qk_std > 0) || !(c.v_std > 0) ||
        c.residual_scale < 0)
        throw ArgumentError("rank_collapse needs n ≥ 2, d ≥ 1, depth ≥ 0, positive weight scales.");
    Rng rng(c.seed);
    const MatrixD X0 = rng.normal_matrix(c.n, c.d).cast<double>();
    MatrixD pure = X0, res = X0;
    RankCollapseCurve out;
    out.pure.push_back(rank_one_distance(pure));
    out.residual.push_back(rank_one_distance(res));
    const double root_d = std::sqrt(static_cast<double>(c.d));
    const double beta = c.residual_scale > 0
                            ? c.residual_scale
                            : 1.0 / std::sqrt(std::max<double>(1.0, double(c.depth)));
    for (Index l = 0; l < c.depth; ++l) {
        const MatrixD Wq = rng.normal_matrix(c.d, c.d, c.qk_std / root_d).cast<double>();
        const MatrixD Wk = rng.normal_matrix(c.d, c.d, c.qk_std / root_d).cast<double>();
        const MatrixD Wv = rng.normal_matrix(c.d, c.d, c.v_std / root_d).cast<double>();
        pure = self_attention_layer(pure, Wq, Wk, Wv);
        res = res + beta * self_attention_layer(res, Wq, Wk, Wv);
        out.pure.push_back(rank_one_distance(pure));
        out.residual.push_back(rank_one_distance(res));
    }
    return out;
}

}  // namespace attn::lenses
