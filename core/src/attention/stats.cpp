// AttnScope core — statistics of attention rows and heads. GPL-3.0-or-later.
#include "attn/attention/stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

#include "attn/util/error.hpp"
#include "detail.hpp"

namespace attn {

namespace {

constexpr float kBig = std::numeric_limits<float>::max();

/// The first finite score (0 when there is none): the moments are taken about it, so that
/// E[(x − c)²] − E[x − c]² does not cancel for scores far from 0.
float first_finite(const float* z, Index n) {
    for (Index j = 0; j < n; ++j)
        if (std::fabs(z[j]) <= kBig) return z[j];
    return 0.f;
}

/// Everything but the entropy from the dispatched pass's sums: max weight, mean distance, and
/// the mean and population variance of the finite scores (masked −∞ are not seen, +∞ have no
/// mean).
RowStats from_sums(const simd::StatsSums& m, float shift) {
    RowStats r;
    r.max_weight = m.best;
    r.mean_distance = m.distance;
    if (m.count > 0) {
        const double mean = m.sum / m.count;
        r.score_mean = mean + shift;
        r.score_var = std::max(0.0, m.sumsq / m.count - mean * mean);
    }
    return r;
}

void check_sizes(Index weights, Index scores) {
    if (scores != 0 && scores != weights)
        throw ShapeError("row_stats: " + std::to_string(weights) + " weights but " +
                         std::to_string(scores) + " scores.");
}

/// Σ weights, throwing NonFiniteError at the first NaN weight.
float checked_total(const Eigen::Ref<const Eigen::RowVectorXf>& weights) {
    const float total = weights.sum();  // vectorised; a NaN anywhere makes it NaN
    if (std::isnan(total))
        for (Index j = 0; j < weights.size(); ++j)
            if (std::isnan(weights(j)))
                throw NonFiniteError("row_stats: weight " + std::to_string(j) + " is NaN.");
    return total;
}

/// Everything but the entropy, by the pass softmax rows use (simd::softmax_stats over the
/// weights as they are); with expected, also Σ α z over the finite scores z.
RowStats common_stats(const Eigen::Ref<const Eigen::RowVectorXf>& weights,
                      const Eigen::Ref<const Eigen::RowVectorXf>& masked_scores, Index query_pos,
                      double* expected = nullptr) {
    const Index n = weights.size();
    const float* z = masked_scores.size() == 0 ? nullptr : masked_scores.data();
    const float shift = z ? first_finite(z, n) : 0.f;
    const simd::StatsSums m = simd::softmax_stats(weights.data(), z, n, query_pos, 1.f, shift,
                                                  nullptr, nullptr, false, nullptr);
    if (expected) *expected = m.az;
    return from_sums(m, shift);
}

RowStats empty_row() {
    RowStats e;
    e.empty = true;
    return e;
}

void set_entropy(RowStats& s, double entropy) {
    // A tiny negative entropy from rounding would give fewer than one effective key.
    s.entropy = std::max(0.0, entropy);
    s.effective_keys = std::exp(s.entropy);
}

}  // namespace

RowStats row_stats(const Eigen::Ref<const Eigen::RowVectorXf>& weights,
                   const Eigen::Ref<const Eigen::RowVectorXf>& masked_scores, Index query_pos) {
    check_sizes(weights.size(), masked_scores.size());
    if (!(checked_total(weights) > 0)) return empty_row();
    RowStats s = common_stats(weights, masked_scores, query_pos);
    // 0 · log(tiny) is the 0 · log 0 = 0 convention without a branch; Eigen vectorises log.
    const auto w = weights.array();
    set_entropy(s, -static_cast<double>((w * w.max(1e-38f).log()).sum()));
    return s;
}

RowStats row_stats_softmax(const Eigen::Ref<const Eigen::RowVectorXf>& weights,
                           const Eigen::Ref<const Eigen::RowVectorXf>& masked_scores,
                           Index query_pos, double log_sum_exp) {
    check_sizes(weights.size(), masked_scores.size());
    if (masked_scores.size() == 0 || !std::isfinite(log_sum_exp))
        return row_stats(weights, masked_scores, query_pos);
    if (!(checked_total(weights) > 0)) return empty_row();
    // With α_j = exp(z_j − L), −Σ α log α = L − Σ α_j z_j over the visible keys: one
    // multiply-add per key instead of a logarithm.
    double expected = 0;
    RowStats s = common_stats(weights, masked_scores, query_pos, &expected);
    set_entropy(s, log_sum_exp - expected);
    return s;
}

namespace detail {

RowStats softmax_row_stats(const float* e, const float* z, Index n, Index query_pos, float inv_sum,
                           double log_sum_exp, float* col_max, float* col_sum, bool fresh,
                           float* weights) {
    // One pass for the softmax's last step, the statistics and the overview's column folds.
    const float shift = first_finite(z, n);
    const simd::StatsSums m =
        simd::softmax_stats(e, z, n, query_pos, inv_sum, shift, col_max, col_sum, fresh, weights);
    RowStats r = from_sums(m, shift);
    set_entropy(r, log_sum_exp - m.az);
    return r;
}

}  // namespace detail

namespace {

HeadStats aggregate(const Matrix& weights, const Matrix* masked) {
    std::vector<RowStats> rows;
    rows.reserve(static_cast<std::size_t>(weights.rows()));
    const Eigen::RowVectorXf none(0);
    for (Index i = 0; i < weights.rows(); ++i)
        rows.push_back(masked ? row_stats(weights.row(i), masked->row(i), i)
                              : row_stats(weights.row(i), none, i));
    return summarize_rows(std::move(rows));
}

}  // namespace

HeadStats summarize_rows(std::vector<RowStats> rows) {
    HeadStats h;
    Index counted = 0;
    for (const RowStats& r : rows) {
        if (r.empty) continue;
        ++counted;
        h.entropy += r.entropy;
        h.effective_keys += r.effective_keys;
        h.max_weight += r.max_weight;
        h.largest_weight = std::max(h.largest_weight, r.max_weight);
        h.mean_distance += r.mean_distance;
        h.score_mean += r.score_mean;
        h.score_var += r.score_var;
    }
    if (counted > 0) {
        const double c = static_cast<double>(counted);
        h.entropy /= c, h.effective_keys /= c, h.max_weight /= c, h.mean_distance /= c;
        h.score_mean /= c, h.score_var /= c;
    }
    h.rows = std::move(rows);
    return h;
}

HeadStats head_stats(const HeadResult& head) {
    if (head.raw.size() == 0) return aggregate(head.weights, nullptr);
    if (head.raw.rows() != head.weights.rows() || head.raw.cols() != head.weights.cols())
        throw ShapeError(
            "head_stats: weights are " + detail::shape(head.weights.rows(), head.weights.cols()) +
            " but raw scores are " + detail::shape(head.raw.rows(), head.raw.cols()) + ".");
    // The masked scores are derived a tile of rows at a time (they are not stored).
    constexpr Index kTile = 64;
    std::vector<RowStats> rows;
    rows.reserve(static_cast<std::size_t>(head.weights.rows()));
    Matrix z;
    for (Index b = 0; b < head.weights.rows(); b += kTile) {
        const Index len = std::min(kTile, head.weights.rows() - b);
        head.masked_rows(b, len, z);
        for (Index r = 0; r < len; ++r)
            rows.push_back(row_stats(head.weights.row(b + r), z.row(r), b + r));
    }
    return summarize_rows(std::move(rows));
}

HeadStats weights_stats(const Matrix& weights) {
    return aggregate(weights, nullptr);
}

}  // namespace attn
