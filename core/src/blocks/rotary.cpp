// AttnScope core — rotary positions' frequencies with transformers' rope-scaling types.
// GPL-3.0-or-later.
#include "attn/blocks/rotary.hpp"

#include <numbers>

namespace attn::blocks {

std::vector<double> rope_frequencies(const RopeSpec& c) {
    const int half = c.rotary_dim / 2;
    std::vector<double> f(std::size_t(half), 0.0);
    for (int i = 0; i < half; ++i)
        f[std::size_t(i)] = 1.0 / std::pow(c.theta, double(2 * i) / double(c.rotary_dim));
    if (c.freq_factors.size() == f.size())
        for (std::size_t i = 0; i < f.size(); ++i)
            f[i] /= c.freq_factors[i];
    if (c.scaling == RopeScaling::LongRope && c.short_factors.size() == f.size()) {
        for (std::size_t i = 0; i < f.size(); ++i)
            f[i] /= c.short_factors[i];
    } else if (c.scaling == RopeScaling::Linear) {
        for (double& v : f)
            v /= c.factor;
    } else if (c.scaling == RopeScaling::Llama3) {
        // transformers' _compute_llama3_parameters: wavelengths longer than the original
        // context / low_freq_factor are slowed by factor, shorter than context /
        // high_freq_factor kept, and the band between blended.
        const double low_wavelen = c.original_max_positions / c.low_freq_factor;
        const double high_wavelen = c.original_max_positions / c.high_freq_factor;
        for (double& v : f) {
            const double wavelen = 2 * std::numbers::pi / v;
            if (wavelen > low_wavelen) {
                v /= c.factor;
            } else if (wavelen >= high_wavelen) {
                const double smooth = (c.original_max_positions / wavelen - c.low_freq_factor) /
                                      (c.high_freq_factor - c.low_freq_factor);
                v = (1 - smooth) * v / c.factor + smooth * v;
            }
        }
    }
    return f;
}

std::vector<double> rope_frequencies(const RopeSpec& c, Index length) {
    if (c.scaling != RopeScaling::LongRope || double(length) <= c.original_max_positions)
        return rope_frequencies(c);
    // transformers' longrope: a sequence longer than the original context uses the long
    // factors at every position.
    RopeSpec longer = c;
    longer.short_factors = c.long_factors;
    return rope_frequencies(longer);
}

}  // namespace attn::blocks
