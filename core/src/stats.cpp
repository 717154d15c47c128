// AttnScope core — statistics of attention rows and heads. GPL-3.0-or-later.
#include "attn/stats.hpp"

#include <cmath>
#include <cstdlib>

#include "attn/error.hpp"
#include "detail.hpp"

namespace attn {

RowStats row_stats(const Eigen::Ref<const Eigen::RowVectorXf>& weights,
                   const Eigen::Ref<const Eigen::RowVectorXf>& masked_scores, Index query_pos) {
    if (masked_scores.size() != 0 && masked_scores.size() != weights.size())
        throw ShapeError("row_stats: " + std::to_string(weights.size()) + " weights but " +
                         std::to_string(masked_scores.size()) + " scores.");
    RowStats s;
    double total = 0;
    for (Index j = 0; j < weights.size(); ++j) {
        const double a = weights(j);
        if (std::isnan(a))
            throw NonFiniteError("row_stats: weight " + std::to_string(j) + " is NaN.");
        total += a;
        if (a > 0) s.entropy -= a * std::log(a);
        s.max_weight = std::max(s.max_weight, a);
        s.mean_distance += a * static_cast<double>(std::abs(query_pos - j));
    }
    s.empty = !(total > 0);
    if (s.empty) {
        RowStats e;
        e.empty = true;
        return e;
    }
    // A tiny negative entropy from rounding would give fewer than one effective key.
    s.entropy = std::max(0.0, s.entropy);
    s.effective_keys = std::exp(s.entropy);
    // Masked (−inf) scores are not seen and +inf ones have no mean: only finite scores count.
    // Population variance (divide by the count).
    double sum = 0, sum2 = 0;
    Index count = 0;
    for (Index j = 0; j < masked_scores.size(); ++j) {
        const double x = masked_scores(j);
        if (!std::isfinite(x)) continue;
        sum += x;
        ++count;
    }
    if (count > 0) {
        s.score_mean = sum / static_cast<double>(count);
        for (Index j = 0; j < masked_scores.size(); ++j) {
            const double x = masked_scores(j);
            if (std::isfinite(x)) sum2 += (x - s.score_mean) * (x - s.score_mean);
        }
        s.score_var = sum2 / static_cast<double>(count);
    }
    return s;
}

namespace {

HeadStats aggregate(const Matrix& weights, const Matrix* masked) {
    HeadStats h;
    h.rows.reserve(static_cast<std::size_t>(weights.rows()));
    const Eigen::RowVectorXf none(0);
    Index counted = 0;
    for (Index i = 0; i < weights.rows(); ++i) {
        const RowStats r = masked ? row_stats(weights.row(i), masked->row(i), i)
                                  : row_stats(weights.row(i), none, i);
        h.rows.push_back(r);
        if (r.empty) continue;
        ++counted;
        h.entropy += r.entropy;
        h.effective_keys += r.effective_keys;
        h.max_weight += r.max_weight;
        h.mean_distance += r.mean_distance;
        h.score_mean += r.score_mean;
        h.score_var += r.score_var;
    }
    if (counted > 0) {
        const double c = static_cast<double>(counted);
        h.entropy /= c, h.effective_keys /= c, h.max_weight /= c, h.mean_distance /= c;
        h.score_mean /= c, h.score_var /= c;
    }
    return h;
}

}  // namespace

HeadStats head_stats(const HeadResult& head) {
    const bool has_scores = head.masked.size() != 0;
    if (has_scores &&
        (head.masked.rows() != head.weights.rows() || head.masked.cols() != head.weights.cols()))
        throw ShapeError("head_stats: weights are " +
                         detail::shape(head.weights.rows(), head.weights.cols()) +
                         " but masked scores are " +
                         detail::shape(head.masked.rows(), head.masked.cols()) + ".");
    return aggregate(head.weights, has_scores ? &head.masked : nullptr);
}

HeadStats weights_stats(const Matrix& weights) {
    return aggregate(weights, nullptr);
}

}  // namespace attn
