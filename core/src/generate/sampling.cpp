// AttnScope core — choosing the next token from logits. GPL-3.0-or-later.
#include "attn/generate/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace attn::gen {

namespace sampling_detail {

/// Token ids, the FIRST most probable first and in order (the rest after them, unordered);
/// equal logits in id order, so the order is a pure function. A partial sort: greedy and top-k
/// steps need only the head of the 50 257 of GPT-2.
std::vector<std::int32_t> by_logit(const Vector& logits, std::size_t first) {
    std::vector<std::int32_t> order(std::size_t(logits.size()));
    std::iota(order.begin(), order.end(), 0);
    const auto more_probable = [&](std::int32_t a, std::int32_t b) {
        const float la = logits[a], lb = logits[b];
        return la > lb || (la == lb && a < b);
    };
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(std::min(first, order.size())),
                      order.end(), more_probable);
    return order;
}

void check_logits(const Vector& logits) {
    if (logits.size() == 0) throw ArgumentError("there are no logits to choose a token from");
    bool any = false;
    for (Index i = 0; i < logits.size(); ++i) {
        // −∞ is a token the model rules out; NaN and +∞ are a broken run.
        if (std::isnan(logits[i]) || logits[i] == std::numeric_limits<float>::infinity())
            throw ArgumentError("logit " + std::to_string(i) + " is not a finite number");
        any = any || std::isfinite(logits[i]);
    }
    if (!any) throw ArgumentError("every logit is −∞: no token can be chosen");
}

}  // namespace sampling_detail

void check_sampling(const Sampling& s) {
    if (!(s.temperature >= 0.f) || !std::isfinite(s.temperature))
        throw ArgumentError("sampling temperature " + std::to_string(s.temperature) +
                            " must be a finite number ≥ 0");
    if (s.top_k < 0)
        throw ArgumentError("top-k " + std::to_string(s.top_k) + " must be ≥ 0 (0: off)");
    if (!(s.top_p > 0.f && s.top_p <= 1.f))
        throw ArgumentError("top-p " + std::to_string(s.top_p) + " must be in (0, 1]");
}

std::vector<float> log_softmax(const Vector& logits) {
    const double max = double(logits.maxCoeff());
    double sum = 0;
    for (Index i = 0; i < logits.size(); ++i)
        sum += std::exp(double(logits[i]) - max);
    const double log_sum = std::log(sum);
    std::vector<float> out(std::size_t(logits.size()));
    for (Index i = 0; i < logits.size(); ++i)
        out[std::size_t(i)] = float(double(logits[i]) - max - log_sum);
    return out;
}

double draw_uniform(std::uint64_t seed, std::int64_t position) {
    Rng rng(derive_seed(seed, std::uint64_t(position)));
    return rng.uniform();
}

Choice choose(const Vector& logits, const Sampling& s, std::int64_t position, int top) {
    check_sampling(s);
    sampling_detail::check_logits(logits);
    const std::size_t v = std::size_t(logits.size()), shown = std::size_t(std::max(top, 0));
    const bool greedy = s.greedy || s.temperature <= kGreedyTemperature || s.top_k == 1;
    // The ordered head: what is shown, and what top-k may keep; all when only top-p cuts.
    const std::size_t ordered = greedy        ? std::max<std::size_t>(shown, 1)
                                : s.top_k > 0 ? std::max(std::size_t(s.top_k), shown)
                                              : v;
    const std::vector<std::int32_t> order = sampling_detail::by_logit(logits, ordered);
    const std::vector<float> lp = log_softmax(logits);
    // The sampling distribution over ORDER: τ, then top-k, then top-p on what is left.
    std::vector<double> p(v, 0.0);
    std::size_t kept = 1;
    if (greedy) {
        p[0] = 1.0;
    } else {
        const double max = double(logits[order[0]]), tau = double(s.temperature);
        kept = s.top_k > 0 ? std::min<std::size_t>(std::size_t(s.top_k), v) : v;
        // Tokens ruled out (−∞, last in the order) are never kept, nor drawn by rounding.
        while (kept > 1 && std::isinf(logits[order[kept - 1]]))
            --kept;
        double mass = 0;
        for (std::size_t i = 0; i < kept; ++i)
            mass += p[i] = std::exp((double(logits[order[i]]) - max) / tau);
        if (s.top_p < 1.f) {
            // The smallest prefix whose mass reaches p; a relative 1e-6 (a few float ulps: p and
            // the logits are floats) lets a p typed as a sum of the shown probabilities be
            // reached despite rounding.
            const double target = double(s.top_p) * (1.0 - 1e-6);
            double cum = 0;
            std::size_t m = 0;
            while (m < kept && cum < target * mass)
                cum += p[m++];
            kept = std::max<std::size_t>(m, 1);
        }
        double kept_mass = 0;
        for (std::size_t i = 0; i < v; ++i) {
            if (i >= kept) p[i] = 0;
            kept_mass += p[i];
        }
        for (std::size_t i = 0; i < kept; ++i)
            p[i] /= kept_mass;
    }
    std::size_t chosen = 0;
    if (!greedy) {
        const double u = draw_uniform(s.seed, position);
        double cum = 0;
        chosen = kept - 1;  // rounding can leave the sum a hair under u
        for (std::size_t i = 0; i < kept; ++i)
            if ((cum += p[i]) > u) {
                chosen = i;
                break;
            }
    }
    Choice c;
    c.id = order[chosen];
    c.logprob = lp[std::size_t(c.id)];
    c.kept = int(kept);
    for (std::size_t i = 0; i < std::min(shown, v); ++i) {
        // A token ruled out (−∞: a padding id, see model/vocabulary.hpp) is no candidate.
        if (std::isinf(logits[order[i]])) break;
        c.top.push_back({order[i], lp[std::size_t(order[i])], float(p[i]), i < kept});
    }
    return c;
}

}  // namespace attn::gen
