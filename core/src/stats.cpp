// AttnScope core — statistics of attention rows and heads. GPL-3.0-or-later.
#include "attn/stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "detail.hpp"

namespace attn {

namespace {

constexpr float kBig = std::numeric_limits<float>::max();
// Work in blocks of kBlock = 64 · kLanes entries: independent float lanes the compiler turns into
// one vector register each (it may not reorder a single floating-point sum by itself), flushed
// into doubles after every block so long rows keep double accuracy.
constexpr Index kLanes = 16, kBlock = 64 * kLanes;

/// Count, Σ (x − shift) and Σ (x − shift)² over the finite entries of x.
struct Moments {
    double count = 0, sum = 0, sumsq = 0;
};

Moments finite_moments(const float* x, Index n, float shift) {
    Moments m;
    Index j = 0;
    for (; j + kLanes <= n;) {
        float c[kLanes] = {}, s[kLanes] = {}, q[kLanes] = {};
        const Index end = j + std::min(kBlock, (n - j) / kLanes * kLanes);
        for (; j < end; j += kLanes)
            for (Index l = 0; l < kLanes; ++l) {
                const float v = x[j + l];
                const float w = std::fabs(v) <= kBig ? v - shift : 0.f;
                c[l] += std::fabs(v) <= kBig ? 1.f : 0.f;
                s[l] += w;
                q[l] += w * w;
            }
        for (Index l = 0; l < kLanes; ++l)
            m.count += c[l], m.sum += s[l], m.sumsq += q[l];
    }
    for (; j < n; ++j)
        if (std::fabs(x[j]) <= kBig) {
            const double w = static_cast<double>(x[j]) - shift;
            m.count += 1, m.sum += w, m.sumsq += w * w;
        }
    return m;
}

/// Σ a_j |j − q| and, when WithZ, Σ a_j z_j over finite z_j.
template <bool WithZ>
std::pair<double, double> weighted_sums_t(const float* a, const float* z, Index n, Index q) {
    double distance = 0, az = 0;
    Index j = 0;
    for (; j + kLanes <= n;) {
        float d[kLanes] = {}, p[kLanes] = {};
        const Index end = j + std::min(kBlock, (n - j) / kLanes * kLanes);
        for (; j < end; j += kLanes) {
            // |j + l − q| in float is exact for the sizes a row can have (< 2²⁴).
            const auto base = static_cast<float>(j - q);
            for (Index l = 0; l < kLanes; ++l) {
                d[l] += a[j + l] * std::fabs(base + static_cast<float>(l));
                if constexpr (WithZ)
                    p[l] += std::fabs(z[j + l]) <= kBig ? a[j + l] * z[j + l] : 0.f;
            }
        }
        for (Index l = 0; l < kLanes; ++l)
            distance += d[l], az += p[l];
    }
    for (; j < n; ++j) {
        distance += static_cast<double>(a[j]) * static_cast<double>(j > q ? j - q : q - j);
        if constexpr (WithZ)
            if (std::fabs(z[j]) <= kBig) az += static_cast<double>(a[j]) * z[j];
    }
    return {distance, az};
}

/// Σ a_j |j − q| and Σ a_j z_j over finite z_j (z may be null: the second sum is 0).
std::pair<double, double> weighted_sums(const float* a, const float* z, Index n, Index q) {
    return z ? weighted_sums_t<true>(a, z, n, q) : weighted_sums_t<false>(a, z, n, q);
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

/// Everything but the entropy: max weight, mean distance, mean and variance of finite scores.
/// With expected, also Σ α z over the finite scores z (same pass as the distance).
RowStats common_stats(const Eigen::Ref<const Eigen::RowVectorXf>& weights,
                      const Eigen::Ref<const Eigen::RowVectorXf>& masked_scores, Index query_pos,
                      double* expected = nullptr) {
    RowStats s;
    s.max_weight = weights.maxCoeff();
    const auto [distance, az] = weighted_sums(
        weights.data(), expected ? masked_scores.data() : nullptr, weights.size(), query_pos);
    s.mean_distance = distance;
    if (expected) *expected = az;
    // Masked (−inf) scores are not seen and +inf ones have no mean: only finite scores count.
    // Population variance (divide by the count), about the first finite score so that
    // E[(x − c)²] − E[x − c]² does not cancel for scores far from 0.
    const float* x = masked_scores.data();
    const Index m = masked_scores.size();
    float shift = 0;
    for (Index j = 0; j < m; ++j)
        if (std::fabs(x[j]) <= kBig) {
            shift = x[j];
            break;
        }
    const Moments mo = finite_moments(x, m, shift);
    if (mo.count > 0) {
        const double mean = mo.sum / mo.count;
        s.score_mean = mean + shift;
        s.score_var = std::max(0.0, mo.sumsq / mo.count - mean * mean);
    }
    return s;
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
    // One pass for what common_stats and the overview's add_row take in five (the run-time
    // dispatched kernel: AVX-512 in a portable build), with the lanes and blocks of
    // finite_moments and weighted_sums.
    float shift = 0;
    for (Index j = 0; j < n; ++j)
        if (std::fabs(z[j]) <= kBig) {
            shift = z[j];
            break;
        }
    const simd::StatsSums m =
        simd::softmax_stats(e, z, n, query_pos, inv_sum, shift, col_max, col_sum, fresh, weights);
    RowStats r;
    r.max_weight = m.best;
    r.mean_distance = m.distance;
    if (m.count > 0) {
        const double mean = m.sum / m.count;
        r.score_mean = mean + shift;
        r.score_var = std::max(0.0, m.sumsq / m.count - mean * mean);
    }
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
