// A float64 reference of one attention row with float32-honest error bounds: how far a float32
// computation of the same formulas may be from the exact value (ε · Σ|terms| · a small
// constant, carried through the softmax and the statistics), whichever CPU kernel, summation
// order or tile shape it used, so that a path is checked against the mathematics, not against
// another path's bits. GPL-3.0-or-later.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attn/attention/aggregate.hpp"
#include "attn/attention/attention.hpp"
#include "attn/attention/stats.hpp"
#include "attn/scene/scene.hpp"
#include "attn/util/types.hpp"
#include "reference_attention.hpp"

namespace fref {

using attn::Index;

constexpr double kEps = FLT_EPSILON;
/// Roundings of one float32 formula evaluation (products, the scale, exp, normalisation).
constexpr double kSlack = 8;
/// A float32 sum of up to 64 entries per lane before it is flushed into a double (the
/// statistics kernel's blocks), or a dot product of up to 64 terms in the worst case.
constexpr double kSumSlack = 72;

/// A score in double and the bound on a float32 evaluation's error.
struct Score {
    double value = 0, bound = 0;
};

/// One query prepared for score(): for general its q·W, for additive its q·W_a (in double, with
/// the sums of the absolute values of their products), computed once per row.
struct Query {
    const float* q = nullptr;
    Index dq = 0;
    std::vector<double> proj, proj_abs;
};

inline Query prepare(const float* q, Index dq, const attn::ScoreParams& p) {
    Query out{q, dq, {}, {}};
    const attn::Matrix* W = p.kind == attn::ScoreKind::General    ? &p.W
                            : p.kind == attn::ScoreKind::Additive ? &p.Wa
                                                                  : nullptr;
    if (!W) return out;
    out.proj.assign(std::size_t(W->cols()), 0), out.proj_abs.assign(std::size_t(W->cols()), 0);
    for (Index b = 0; b < W->cols(); ++b)
        for (Index a = 0; a < dq; ++a) {
            const double x = double(q[a]) * double((*W)(a, b));
            out.proj[std::size_t(b)] += x, out.proj_abs[std::size_t(b)] += std::abs(x);
        }
    return out;
}

/// s(q, k) in double for a prepared query and key row k (width dk), with the float32 bound
/// kSlack · ε · Σ|terms| (the absolute values of every product the formula adds up).
inline Score score(const Query& q, const float* k, Index dk, const attn::ScoreParams& p) {
    Score s;
    double terms = 0;
    switch (p.kind) {
        case attn::ScoreKind::Dot:
            for (Index t = 0; t < q.dq; ++t) {
                const double x = double(q.q[t]) * double(k[t]);
                s.value += x, terms += std::abs(x);
            }
            break;
        case attn::ScoreKind::General:
            for (Index b = 0; b < dk; ++b) {
                const auto u = std::size_t(b);
                s.value += q.proj[u] * double(k[b]);
                terms += q.proj_abs[u] * std::abs(double(k[b]));
            }
            break;
        case attn::ScoreKind::Additive:
            for (Index a = 0; a < p.va.size(); ++a) {
                double h = q.proj[std::size_t(a)], h_abs = q.proj_abs[std::size_t(a)];
                for (Index t = 0; t < dk; ++t) {
                    const double x = double(k[t]) * double(p.Ua(t, a));
                    h += x, h_abs += std::abs(x);
                }
                // tanh' ≤ 1: h's error passes through; tanh itself rounds relative to 1.
                s.value += double(p.va(a)) * std::tanh(h);
                terms += std::abs(double(p.va(a))) * (h_abs + 1);
            }
            break;
        case attn::ScoreKind::Rbf: {
            // Σ (q − k)²: every term positive, the sum is its own Σ|terms|.
            double d2 = 0;
            for (Index t = 0; t < q.dq; ++t) {
                const double d = double(q.q[t]) - double(k[t]);
                d2 += d * d;
            }
            const double c = 1.0 / (2.0 * double(p.sigma) * double(p.sigma));
            s.value = -d2 * c, terms = d2 * c;
            break;
        }
    }
    s.bound = kSlack * kEps * terms;
    return s;
}

/// The reference of one query row: scaled scores, weights, statistics, each with its bound.
struct Row {
    std::vector<double> z, z_bound;  ///< scaled scores (−∞ where masked) and their bounds
    std::vector<double> w, w_bound;  ///< softmax weights and their bounds
    bool empty = true;
    attn::RowStats stats;  ///< the reference's statistics
    attn::RowStats bound;  ///< the bound of each statistic (as a RowStats of bounds)
};

/// The row of query i over nk keys, the scaled score c · score_of(j) where allowed(j), soft
/// temperature only. Every bound is a float32 bound: the score's, then through exp and the
/// normalisation (a weight's relative error is its score's plus the weighted mean of all
/// scores'), then into the statistics (their float lanes add kSumSlack · ε of their terms).
template <class Allowed, class ScoreOf>
Row row_of(Index nk, Index i, double c, Allowed allowed, ScoreOf score_of) {
    Row r;
    const double ninf = -std::numeric_limits<double>::infinity();
    r.z.assign(std::size_t(nk), ninf), r.z_bound.assign(std::size_t(nk), 0);
    r.w.assign(std::size_t(nk), 0), r.w_bound.assign(std::size_t(nk), 0);
    double m = ninf;
    for (Index j = 0; j < nk; ++j) {
        if (!allowed(j)) continue;
        const Score s = score_of(j);
        const auto u = std::size_t(j);
        r.z[u] = c * s.value;
        // The score's error, scaled; and the scaled score's own rounding to float.
        r.z_bound[u] = std::abs(c) * s.bound + 2 * kEps * std::abs(r.z[u]);
        m = std::max(m, r.z[u]);
    }
    if (m == ninf) return r;
    r.empty = false;
    double sum = 0;
    for (Index j = 0; j < nk; ++j)
        if (r.z[std::size_t(j)] > ninf) sum += std::exp(r.z[std::size_t(j)] - m);
    // E_j: the relative error of e^(z_j − m) in float (its score's, the rounding of z_j − m,
    // exp's).
    std::vector<double> rel(std::size_t(nk), 0);
    double mean_rel = kSumSlack * kEps;  // and the float sum of the e_j
    for (Index j = 0; j < nk; ++j) {
        const auto u = std::size_t(j);
        if (r.z[u] == ninf) continue;
        r.w[u] = std::exp(r.z[u] - m) / sum;
        rel[u] = r.z_bound[u] + kEps * std::abs(r.z[u] - m) + 4 * kEps;
        mean_rel += r.w[u] * rel[u];
    }
    // w_j(1 + E_j)/(1 − Ē), with room for second-order terms; an absolute floor where a float
    // weight is subnormal or flushed.
    double lse = m + std::log(sum), az = 0, az_abs = 0, dist_b = 0, ent_b = 0;
    double count = 0, zsum = 0, zabs = 0, zb_sum = 0;
    for (Index j = 0; j < nk; ++j) {
        const auto u = std::size_t(j);
        if (r.z[u] == ninf) continue;
        const double w = r.w[u], z = r.z[u];
        r.w_bound[u] = 1.1 * w * (rel[u] + mean_rel) + 1e-37;
        r.stats.max_weight = std::max(r.stats.max_weight, w);
        r.bound.max_weight = std::max(r.bound.max_weight, r.w_bound[u]);
        const double d = double(std::abs(j - i));
        r.stats.mean_distance += w * d;
        dist_b += r.w_bound[u] * d;
        az += w * z, az_abs += std::abs(w * z);
        ent_b += r.w_bound[u] * std::abs(z) + w * r.z_bound[u];
        count += 1, zsum += z, zabs += std::abs(z), zb_sum += r.z_bound[u];
    }
    r.stats.entropy = lse - az;
    r.stats.effective_keys = std::exp(r.stats.entropy);
    r.stats.score_mean = zsum / count;
    double var = 0, var_b = 0;
    for (Index j = 0; j < nk; ++j) {
        const auto u = std::size_t(j);
        if (r.z[u] == ninf) continue;
        const double dz = r.z[u] - r.stats.score_mean;
        var += dz * dz, var_b += 2 * std::abs(dz) * r.z_bound[u] + r.z_bound[u] * r.z_bound[u];
    }
    r.stats.score_var = var / count;
    r.bound.max_weight += kSlack * kEps * r.stats.max_weight;
    r.bound.mean_distance = dist_b + kSumSlack * kEps * r.stats.mean_distance;
    // L − Σ α z: L's error (Ē and its rounding), the products', the float sum's.
    r.bound.entropy = mean_rel + kSlack * kEps * std::abs(lse) + ent_b + kSumSlack * kEps * az_abs;
    r.bound.effective_keys = r.stats.effective_keys * std::expm1(r.bound.entropy * 1.01);
    // The float lanes sum z − shift with shift the row's maximum: |z − m| per term.
    const double spread = zabs / count + std::abs(m);
    r.bound.score_mean = zb_sum / count + kSumSlack * kEps * spread;
    // Σ(z − m)²/n − (mean − m)² in float lanes: their error is ε of the squares, not of the
    // variance.
    r.bound.score_var = var_b / count + 4 * kSumSlack * kEps * spread * spread;
    return r;
}

/// row_of for query q (width dq) against keys K (rows of width dk at k0 + j · k_stride), masked
/// by `mask` (ref::allowed).
inline Row row(const float* q, Index dq, const float* k0, Index k_stride, Index nk, Index dk,
               const attn::ScoreParams& p, double c, const attn::MaskSpec& mask, Index i,
               Index nq) {
    const Query prepared = prepare(q, dq, p);
    return row_of(
        nk, i, c, [&](Index j) { return ref::allowed(mask, i, j, nq, nk); },
        [&](Index j) { return score(prepared, k0 + j * k_stride, dk, p); });
}

/// The row of query i from given raw scores (a loaded file's: exact as they are), scaled by c,
/// visible where `visible` says.
inline Row scores_row(const Eigen::RowVectorXf& raw, double c, const std::vector<bool>& visible,
                      Index i) {
    return row_of(
        raw.size(), i, c, [&](Index j) { return bool(visible[std::size_t(j)]); },
        [&](Index j) {
            return Score{double(raw(j)), 0};
        });
}

/// |got − want| ≤ bound, saying by how much it is off when not.
inline ::testing::AssertionResult within(double got, double want, double bound) {
    if (std::isinf(want) && got == want) return ::testing::AssertionSuccess();
    if (std::abs(got - want) <= bound) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << got << " vs the reference " << want << ": off by "
                                         << std::abs(got - want) << ", bound " << bound;
}

/// Every statistic of `got` within the reference's bound.
inline void expect_stats(const attn::RowStats& got, const Row& want, const std::string& at) {
    ASSERT_EQ(got.empty, want.empty) << at;
    if (want.empty) return;
    const attn::RowStats &s = want.stats, &b = want.bound;
    EXPECT_TRUE(within(got.max_weight, s.max_weight, b.max_weight)) << at << " max_weight";
    EXPECT_TRUE(within(got.mean_distance, s.mean_distance, b.mean_distance)) << at << " distance";
    EXPECT_TRUE(within(got.entropy, s.entropy, b.entropy)) << at << " entropy";
    EXPECT_TRUE(within(got.score_mean, s.score_mean, b.score_mean)) << at << " score_mean";
    EXPECT_TRUE(within(got.score_var, s.score_var, b.score_var)) << at << " score_var";
}

/// The multiplier of a scaled score: 1/√d_k for dot and general when scaled, over τ.
inline double multiplier(attn::ScoreKind kind, bool scale, double d_k, double temperature) {
    const bool scalable =
        scale && (kind == attn::ScoreKind::Dot || kind == attn::ScoreKind::General);
    return (scalable ? 1 / std::sqrt(d_k) : 1.0) / temperature;
}

/// The reference of query i of head h of a computed scene (its own Q and K, the head's key head
/// under GQA, the spec's mask, scale and temperature).
inline Row scene_row(const attn::SceneResult& r, const attn::SceneSpec& spec, Index h, Index i) {
    const Index d = r.d_k, heads = Index(r.heads.size());
    const Index kv = r.kv_heads > 0 ? r.kv_heads : heads;
    const Index kh = h / (heads / kv);
    const attn::ScoreParams& p = r.head_scores[std::size_t(h)];
    const double c = multiplier(p.kind, spec.scale, double(d), double(spec.temperature));
    return row(r.Q.row(i).data() + h * d, d, r.K.data() + kh * d, r.K.cols(), r.K.rows(), d, p, c,
               spec.mask, i, r.Q.rows());
}

/// A head's averages against the mean of its rows' references and bounds.
inline void expect_head_stats(const attn::HeadStats& got, const std::vector<Row>& rows,
                              const std::string& at) {
    attn::RowStats s, b;
    double n = 0;
    for (const Row& r : rows) {
        if (r.empty) continue;
        n += 1;
        s.max_weight += r.stats.max_weight, b.max_weight += r.bound.max_weight;
        s.mean_distance += r.stats.mean_distance, b.mean_distance += r.bound.mean_distance;
        s.entropy += r.stats.entropy, b.entropy += r.bound.entropy;
        s.score_mean += r.stats.score_mean, b.score_mean += r.bound.score_mean;
        s.score_var += r.stats.score_var, b.score_var += r.bound.score_var;
    }
    ASSERT_GT(n, 0) << at;
    // The mean of the rows, plus the rounding of a double sum (negligible, but honest).
    const auto ok = [&](double g, double sum, double bound) {
        return within(g, sum / n, bound / n + 1e-12 * std::abs(sum / n));
    };
    EXPECT_TRUE(ok(got.max_weight, s.max_weight, b.max_weight)) << at << " max_weight";
    EXPECT_TRUE(ok(got.mean_distance, s.mean_distance, b.mean_distance)) << at << " distance";
    EXPECT_TRUE(ok(got.entropy, s.entropy, b.entropy)) << at << " entropy";
    EXPECT_TRUE(ok(got.score_mean, s.score_mean, b.score_mean)) << at << " score_mean";
    EXPECT_TRUE(ok(got.score_var, s.score_var, b.score_var)) << at << " score_var";
}

/// A float32 weights row within the reference's bounds (masked keys exactly 0).
inline void expect_weights(const float* got, const Row& want, const std::string& at) {
    for (std::size_t j = 0; j < want.w.size(); ++j)
        EXPECT_TRUE(within(got[j], want.w[j], want.w_bound[j])) << at << " key " << j;
}

/// Head h's output row (Σ_j w_j v_j over its key head's V) within the weights' bounds carried
/// through the sum (and the float sum's own rounding).
inline void expect_output(const Eigen::RowVectorXf& got, const attn::SceneResult& r, Index h,
                          const Row& want, const std::string& at) {
    const Index heads = Index(r.heads.size());
    const Index kv = r.kv_heads > 0 ? r.kv_heads : heads;
    const Index kh = h / (heads / kv), dv = r.V.cols() / kv;
    ASSERT_EQ(got.size(), dv) << at;
    for (Index t = 0; t < dv; ++t) {
        double o = 0, bound = 0, terms = 0;
        for (std::size_t j = 0; j < want.w.size(); ++j) {
            const double v = r.V(Index(j), kh * dv + t);
            o += want.w[j] * v, bound += want.w_bound[j] * std::abs(v);
            terms += want.w[j] * std::abs(v);
        }
        EXPECT_TRUE(within(got(t), o, bound + kSumSlack * kEps * terms + 1e-30))
            << at << " output " << t;
    }
}

/// The references of every query of head h.
inline std::vector<Row> scene_rows(const attn::SceneResult& r, const attn::SceneSpec& spec,
                                   Index h) {
    std::vector<Row> rows;
    for (Index i = 0; i < r.Q.rows(); ++i)
        rows.push_back(scene_row(r, spec, h, i));
    return rows;
}

/// An aggregated grid of weights against the same blocks of the reference (rows: every query's),
/// each cell within the largest (max) or mean (mean) bound of its block's weights.
inline void expect_grid(const attn::AggregatedGrid& g, const std::vector<Row>& rows,
                        attn::Aggregation mode, const std::string& at) {
    const Index r_end = g.firstRow + g.regionRows, c_end = g.firstCol + g.regionCols;
    for (int r = 0; r < g.rows; ++r)
        for (int c = 0; c < g.cols; ++c) {
            double best = 0, best_b = 0, sum = 0, sum_b = 0, cells = 0;
            bool visible = false;
            const Index i0 = g.firstRow + Index(r) * g.rowFactor;
            const Index j0 = g.firstCol + Index(c) * g.colFactor;
            for (Index i = i0; i < std::min(r_end, i0 + g.rowFactor); ++i)
                for (Index j = j0; j < std::min(c_end, j0 + g.colFactor); ++j) {
                    const Row& row = rows[std::size_t(i)];
                    const auto u = std::size_t(j);
                    cells += 1, sum += row.w[u], sum_b += row.w_bound[u];
                    if (std::isinf(row.z[u])) continue;
                    best = visible ? std::max(best, row.w[u]) : row.w[u];
                    best_b = std::max(best_b, row.w_bound[u]);
                    visible = true;
                }
            EXPECT_EQ(g.isMasked(r, c), !visible) << at << " block " << r << "," << c;
            const bool max = mode == attn::Aggregation::Max;
            EXPECT_TRUE(within(g.at(r, c), max ? best : sum / cells,
                               (max ? best_b : sum_b / cells) + kSumSlack * kEps * sum / cells))
                << at << " block " << r << "," << c;
        }
}

}  // namespace fref
