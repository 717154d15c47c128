// AttnScope core — the 2-D attention playground. GPL-3.0-or-later.
#include "attn/playground/playground.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/attention/kernel.hpp"
#include "attn/playground/geometry.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace attn {

namespace {

Matrix points_matrix(const std::vector<Eigen::Vector2d>& pts) {
    Matrix m(static_cast<Index>(pts.size()), 2);
    for (std::size_t i = 0; i < pts.size(); ++i)
        m.row(static_cast<Index>(i)) = pts[i].cast<float>().transpose();
    return m;
}

ScoreParams score_params(const PlaygroundState& s) {
    ScoreParams p;
    p.kind = s.score;
    p.W = s.W.cast<float>();
    p.Wa = s.Wa.cast<float>();
    p.Ua = s.Ua.cast<float>();
    p.va = s.va.cast<float>();
    p.sigma = static_cast<float>(s.sigma);
    return p;
}

void validate(const PlaygroundState& s) {
    if (s.keys.size() != s.values.size())
        throw ArgumentError("The playground has " + std::to_string(s.keys.size()) + " keys but " +
                            std::to_string(s.values.size()) + " values; they come in pairs.");
    if (s.as_if_dk < 1 || s.as_if_dk > 4096)
        throw ArgumentError("\"As if d_k = N\" needs 1 <= N <= 4096 (got " +
                            std::to_string(s.as_if_dk) + ").");
    if (!(s.sigma > 0) || !std::isfinite(s.sigma))
        throw ArgumentError("The RBF bandwidth sigma must be positive.");
}

// splitmix64's output for x: a tiny, portable mixer, so the sample for (seed, query) never
// depends on the order in which queries were added or on the standard library.
std::uint64_t mix(std::uint64_t x) {
    return splitmix64(x);
}

}  // namespace

bool operator==(const PlaygroundState& a, const PlaygroundState& b) {
    return a.queries == b.queries && a.keys == b.keys && a.values == b.values &&
           a.masked == b.masked && a.score == b.score && a.W == b.W && a.Wa == b.Wa &&
           a.Ua == b.Ua && a.va == b.va && a.sigma == b.sigma && a.scale == b.scale &&
           a.as_if_dk == b.as_if_dk && a.temperature == b.temperature &&
           a.hard_sample == b.hard_sample && a.seed == b.seed &&
           a.selected_query == b.selected_query && a.overlay == b.overlay &&
           a.snap_to_grid == b.snap_to_grid && a.grid_step == b.grid_step &&
           a.sorted_bars == b.sorted_bars;
}

double playground_multiplier(const PlaygroundState& state) {
    return score_is_scalable(state.score) ? std::sqrt(state.as_if_dk / 2.0) : 1.0;
}

double playground_uniform(std::uint64_t seed, std::size_t query) {
    return static_cast<double>(mix(mix(seed) ^ (query + 1)) >> 11) * 0x1.0p-53;
}

int sample_categorical(const Eigen::Ref<const Eigen::RowVectorXf>& weights, double u) {
    const double total = weights.cast<double>().sum();
    if (!(total > 0)) return -1;
    double acc = 0;
    int last = -1;
    for (Index j = 0; j < weights.size(); ++j) {
        if (weights[j] <= 0) continue;
        acc += weights[j] / total;
        last = static_cast<int>(j);
        if (u < acc) return last;
    }
    return last;  // u within rounding of 1: the last key with weight
}

PlaygroundResult compute_playground(const PlaygroundState& s) {
    validate(s);
    PlaygroundResult r;
    r.multiplier = playground_multiplier(s);
    const Index nq = static_cast<Index>(s.queries.size());
    const Index nk = static_cast<Index>(s.keys.size());
    std::vector<Point2> values(s.values.begin(), s.values.end());
    r.hull = convex_hull_indices(values);
    for (int i : r.hull)
        r.hull_points.push_back(values[static_cast<std::size_t>(i)]);
    if (nq == 0) return r;

    r.outputs.assign(static_cast<std::size_t>(nq), Eigen::Vector2d::Zero());
    r.empty.assign(static_cast<std::size_t>(nq), true);
    r.inside.assign(static_cast<std::size_t>(nq), false);
    r.hull_coords.assign(static_cast<std::size_t>(nq), Eigen::VectorXd());
    r.sampled.assign(static_cast<std::size_t>(nq), -1);
    if (nk == 0) return r;  // nothing to attend to: the defined empty result

    const Matrix Q = points_matrix(s.queries);
    const Matrix K = points_matrix(s.keys);
    const Matrix V = points_matrix(s.values);
    r.raw2d = compute_scores(Q, K, score_params(s));
    AttentionParams p;
    p.score = score_params(s);
    p.scale = s.scale;
    p.temperature = static_cast<float>(s.temperature);
    if (std::any_of(s.masked.begin(), s.masked.end(), [](bool m) { return m; })) {
        p.mask.kind = MaskKind::Padding;
        p.mask.key_valid.resize(static_cast<std::size_t>(nk));
        for (std::size_t j = 0; j < p.mask.key_valid.size(); ++j)
            p.mask.key_valid[j] = !s.is_masked(j);
    }
    const Matrix raw = r.raw2d * static_cast<float>(r.multiplier);
    r.head = attend_scores(raw, static_cast<float>(s.as_if_dk), p, &V);

    double extent = 0;
    for (const Point2& v : values)
        extent = std::max(extent, (v - values[0]).norm());
    // The output is a float weighted sum: allow its rounding, relative to the values' spread.
    const double tol = 1e-5 * std::max(extent, 1.0);
    for (Index i = 0; i < nq; ++i) {
        const std::size_t ii = static_cast<std::size_t>(i);
        r.empty[ii] = r.head.empty_rows[ii] != 0;
        r.outputs[ii] = r.head.output.row(i).cast<double>().transpose();
        if (r.empty[ii]) continue;
        r.inside[ii] = point_in_hull(r.hull_points, r.outputs[ii], tol);
        r.hull_coords[ii] = polygon_barycentric(r.hull_points, r.outputs[ii]);
        r.sampled[ii] = sample_categorical(r.head.weights.row(i), playground_uniform(s.seed, ii));
    }
    return r;
}

RegressionCurves playground_regression(const PlaygroundState& s, double x0, double x1,
                                       int samples) {
    validate(s);
    if (samples < 2) throw ArgumentError("playground_regression needs at least 2 samples.");
    RegressionCurves c;
    c.xs = VectorD::LinSpaced(samples, x0, x1);
    const double tau = std::max(s.temperature, static_cast<double>(kHardTemperature));
    const double scale = s.scale ? 1.0 / std::sqrt(static_cast<double>(s.as_if_dk)) : 1.0;
    c.exp_dot_factor = std::sqrt(s.as_if_dk / 2.0) * scale / tau;
    std::vector<double> kx, vy;
    for (std::size_t j = 0; j < s.keys.size(); ++j) {
        if (s.is_masked(j)) continue;
        kx.push_back(s.keys[j].x());
        vy.push_back(s.values[j].x());
    }
    if (kx.empty()) {  // every key masked: the defined zero prediction
        c.rbf = VectorD::Zero(samples);
        c.exp_dot = VectorD::Zero(samples);
        return c;
    }
    const VectorD keys = Eigen::Map<const VectorD>(kx.data(), static_cast<Index>(kx.size()));
    const VectorD vals = Eigen::Map<const VectorD>(vy.data(), static_cast<Index>(vy.size()));
    // τ divides the RBF log-score too: the effective bandwidth is σ√τ.
    c.rbf = nadaraya_watson_1d(c.xs, keys, vals, rbf_kernel(s.sigma * std::sqrt(tau)));
    c.exp_dot = nadaraya_watson_1d(c.xs, keys, vals, exp_dot_kernel(c.exp_dot_factor));
    return c;
}

}  // namespace attn
