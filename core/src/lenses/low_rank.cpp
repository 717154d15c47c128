// AttnScope core — the "low-rank" lens. GPL-3.0-or-later.
#include "attn/lenses/low_rank.hpp"

#include <algorithm>
#include <cmath>

#include "attn/analysis/lowrank.hpp"
#include "attn/attention/multihead.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace attn::lenses {

MatrixD random_bilinear(Index d, std::uint64_t seed) {
    if (d < 1) throw ArgumentError("random_bilinear needs d ≥ 1.");
    Rng rng(seed);
    return rng.normal_matrix(d, d, 1.0 / std::sqrt(static_cast<double>(d))).cast<double>();
}

MatrixD scene_bilinear(const SceneSpec& spec, Index head) {
    if (spec.score != ScoreKind::Dot && spec.score != ScoreKind::General)
        throw ArgumentError("Only dot and general scores are bilinear forms.");
    MultiHeadConfig config;
    config.d_model = spec.d_model;
    config.heads = spec.heads;
    config.kv_heads = spec.kv_heads;
    config.validate();
    if (head < 0 || head >= config.heads) throw ArgumentError("scene_bilinear: no such head.");
    const MultiHeadWeights w =
        spec.weights ? *spec.weights
                     : MultiHeadWeights::xavier(config, spec.score, spec.seed, spec.sigma);
    const Index dk = config.d_k();
    const Index g = kv_head_of(head, config.heads, config.kv());
    const MatrixD Wq = w.Wq.middleCols(head * dk, dk).cast<double>();
    const MatrixD Wk = w.Wk.middleCols(g * dk, dk).cast<double>();
    if (spec.score == ScoreKind::General && static_cast<std::size_t>(head) < w.head_scores.size() &&
        w.head_scores[static_cast<std::size_t>(head)].W.size() == dk * dk)
        return Wq * w.head_scores[static_cast<std::size_t>(head)].W.cast<double>() * Wk.transpose();
    return Wq * Wk.transpose();
}

LowRankView low_rank_view(const MatrixD& W, const MatrixD& Xq, const MatrixD& Xk, Index r) {
    if (Xq.cols() != W.rows() || Xk.cols() != W.cols())
        throw ShapeError("low_rank_view: Xq, W, Xk do not fit (Xq·W·Xkᵀ).");
    const Index full = std::min(W.rows(), W.cols());
    r = std::clamp<Index>(r, 0, full);
    LowRankView v;
    const LowRankFactors f = factorize_bilinear(W, r);
    v.singular_values = f.singular_values;
    v.rank = r;
    v.full_scores = Xq * W * Xk.transpose();
    v.rank_scores = Xq * f.product() * Xk.transpose();
    v.errors = low_rank_score_errors(W, Xq, Xk);
    // Eckart–Young: ‖W − W_r‖_F² is the sum of the squared tail singular values.
    const double total = v.singular_values.squaredNorm();
    for (Index k = 0; k <= full; ++k) {
        const double tail = v.singular_values.tail(full - k).squaredNorm();
        v.weight_errors.push_back(total > 0 ? std::sqrt(tail / total) : 0.0);
    }
    return v;
}

}  // namespace attn::lenses
