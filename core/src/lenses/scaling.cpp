// AttnScope core — the "scaling" lens. GPL-3.0-or-later.
#include "attn/lenses/scaling.hpp"

#include <cmath>

#include "attn/lenses/common.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace attn::lenses {

DotSamples sample_dot_products(Index d_k, Index count, std::uint64_t seed) {
    if (d_k < 1 || count < 1) throw ArgumentError("sample_dot_products needs d_k ≥ 1, count ≥ 1.");
    Rng rng(seed);
    DotSamples s;
    s.d_k = d_k;
    s.unscaled.reserve(static_cast<std::size_t>(count));
    s.scaled.reserve(static_cast<std::size_t>(count));
    const double inv = 1.0 / std::sqrt(static_cast<double>(d_k));
    for (Index t = 0; t < count; ++t) {
        double dot = 0;
        for (Index i = 0; i < d_k; ++i)
            dot += rng.normal() * rng.normal();
        s.unscaled.push_back(dot);
        s.scaled.push_back(dot * inv);
    }
    return s;
}

double softmax_jacobian_norm(const VectorD& alpha) {
    const double s2 = alpha.squaredNorm();
    const double s3 = alpha.array().cube().sum();
    return std::sqrt(std::max(0.0, s2 - 2 * s3 + s2 * s2));
}

std::vector<ScalingPoint> scaling_sweep(const ScalingConfig& config) {
    std::vector<Index> d_ks = config.d_ks;
    if (d_ks.empty())
        for (Index d = 1; d <= 512; d *= 2)
            d_ks.push_back(d);
    if (config.keys < 2 || config.trials < 2)
        throw ArgumentError("scaling_sweep needs at least 2 keys and 2 trials.");
    std::vector<ScalingPoint> out;
    for (std::size_t idx = 0; idx < d_ks.size(); ++idx) {
        const Index d = d_ks[idx];
        if (d < 1) throw ArgumentError("scaling_sweep: d_k must be ≥ 1.");
        // One stream per d_k so adding a width to the list does not change the others.
        Rng rng(derive_seed(config.seed, static_cast<std::uint64_t>(d)));
        const double inv = 1.0 / std::sqrt(static_cast<double>(d));
        ScalingPoint p;
        p.d_k = d;
        std::vector<double> dots;
        dots.reserve(static_cast<std::size_t>(config.trials * config.keys));
        for (Index t = 0; t < config.trials; ++t) {
            const MatrixD q = rng.normal_matrix(1, d).cast<double>();
            const MatrixD K = rng.normal_matrix(config.keys, d).cast<double>();
            const VectorD s = K * q.transpose();
            for (Index j = 0; j < s.size(); ++j)
                dots.push_back(s(j));
            const VectorD a = softmax(s), b = softmax(s * inv);
            p.max_unscaled += a.maxCoeff();
            p.max_scaled += b.maxCoeff();
            p.entropy_unscaled += entropy(a);
            p.entropy_scaled += entropy(b);
            p.jacobian_unscaled += softmax_jacobian_norm(a);
            p.jacobian_scaled += softmax_jacobian_norm(b);
        }
        const double nt = static_cast<double>(config.trials);
        p.max_unscaled /= nt;
        p.max_scaled /= nt;
        p.entropy_unscaled /= nt;
        p.entropy_scaled /= nt;
        p.jacobian_unscaled /= nt;
        p.jacobian_scaled /= nt;
        p.var_unscaled = moments(dots).variance;
        p.var_scaled = p.var_unscaled / static_cast<double>(d);
        out.push_back(p);
    }
    return out;
}

}  // namespace attn::lenses
