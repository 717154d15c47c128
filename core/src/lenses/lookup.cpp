// AttnScope core — the "lookup" lens. GPL-3.0-or-later.
#include "attn/lenses/lookup.hpp"

#include <algorithm>
#include <cmath>

#include "attn/attention/attention.hpp"
#include "attn/lenses/common.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace attn::lenses {

VectorD tempered_softmax(const VectorD& scores, double tau) {
    if (scores.size() == 0) throw ArgumentError("tempered_softmax needs at least one score.");
    if (!(tau > 0)) throw ArgumentError("The temperature τ must be positive.");
    if (tau <= kHardTemperature) {
        const double m = scores.maxCoeff();
        VectorD p = (scores.array() == m).cast<double>();
        return p / p.sum();
    }
    return softmax(scores / tau);
}

std::vector<Index> sample_categorical(const VectorD& alpha, Index count, std::uint64_t seed) {
    if (alpha.size() == 0 || (alpha.array() < 0).any() || !(alpha.sum() > 0))
        throw ArgumentError("sample_categorical needs non-negative weights with a positive sum.");
    VectorD cdf(alpha.size());
    double run = 0;
    for (Index j = 0; j < alpha.size(); ++j)
        cdf(j) = (run += alpha(j));
    Rng rng(seed);
    std::vector<Index> out;
    out.reserve(static_cast<std::size_t>(std::max<Index>(count, 0)));
    for (Index t = 0; t < count; ++t) {
        const double u = rng.uniform() * run;
        const auto it = std::upper_bound(cdf.data(), cdf.data() + cdf.size(), u);
        out.push_back(std::min<Index>(it - cdf.data(), alpha.size() - 1));
    }
    return out;
}

HardLookup hard_lookup(const VectorD& alpha, const MatrixD& V, Index count, std::uint64_t seed) {
    if (V.rows() != alpha.size()) throw ShapeError("hard_lookup: V needs one row per weight.");
    if (count < 1) throw ArgumentError("hard_lookup needs at least one draw.");
    HardLookup h;
    const VectorD a = alpha / alpha.sum();
    h.exact = V.transpose() * a;
    const double ref = h.exact.norm() > 0 ? h.exact.norm() : 1.0;
    const std::vector<Index> draws = sample_categorical(a, count, seed);
    h.frequencies.assign(static_cast<std::size_t>(a.size()), 0.0);
    VectorD sum = VectorD::Zero(V.cols());
    Index next_check = 1;
    for (Index t = 0; t < count; ++t) {
        const Index j = draws[static_cast<std::size_t>(t)];
        h.frequencies[static_cast<std::size_t>(j)] += 1;
        sum += V.row(j).transpose();
        if (t + 1 == next_check || t + 1 == count) {
            h.steps.push_back(t + 1);
            h.errors.push_back((sum / double(t + 1) - h.exact).norm() / ref);
            // Checks on a geometric grid keep the curve short on a log axis.
            next_check = std::max(next_check + 1, static_cast<Index>(std::ceil(next_check * 1.25)));
        }
    }
    for (double& f : h.frequencies)
        f /= static_cast<double>(count);
    return h;
}

std::vector<TemperaturePoint> temperature_sweep(const VectorD& scores,
                                                const std::vector<double>& taus) {
    std::vector<TemperaturePoint> out;
    for (double tau : taus) {
        const VectorD p = tempered_softmax(scores, tau);
        out.push_back({tau, entropy(p), p.maxCoeff()});
    }
    return out;
}

}  // namespace attn::lenses
