// AttnScope core — choosing the next token from logits: greedy, temperature, top-k, top-p, and
// a seeded draw that repeats on every machine. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/util/types.hpp"

namespace attn::gen {

/// How the next token is chosen.
struct Sampling {
    bool greedy = true;       ///< the most probable token (ties: the lowest id)
    float temperature = 1.f;  ///< τ dividing the logits; ≤ kGreedyTemperature: greedy
    int top_k = 0;            ///< keep the k most probable tokens (0: all)
    float top_p = 1.f;        ///< keep the smallest set whose probability reaches p (1: all)
    std::uint64_t seed = 0;   ///< the draw at position i depends only on (seed, i)
    bool operator==(const Sampling&) const = default;
};

/// Temperatures at or below this choose greedily (the limit τ → 0 of the softmax).
inline constexpr float kGreedyTemperature = 1e-6f;

/// One candidate of a step's distribution.
struct Candidate {
    std::int32_t id = 0;
    float logprob = 0.f;      ///< log-softmax of the model's logits (τ = 1)
    float probability = 0.f;  ///< the sampling distribution (τ, top-k, top-p; renormalised)
    bool kept = false;        ///< survived top-k and top-p (greedy: only the chosen one)
};

/// The distribution one token was chosen from.
struct Choice {
    std::int32_t id = 0;         ///< the chosen token
    float logprob = 0.f;         ///< its log-probability under the model (τ = 1)
    std::vector<Candidate> top;  ///< the 10 most probable, most probable first
    int kept = 0;                ///< how many tokens survived top-k and top-p
};

/// log-softmax of LOGITS (in double, then float): log-probabilities summing to 1 in exp.
std::vector<float> log_softmax(const Vector& logits);

/// The uniform number in [0, 1) that the draw at POSITION uses: splitmix64/xoshiro (attn::Rng)
/// seeded with derive_seed(SEED, POSITION), so a step can be redone alone and gives the same.
double draw_uniform(std::uint64_t seed, std::int64_t position);

/// Chooses the next token from LOGITS (the logits predicting POSITION) with SAMPLING: HF's
/// order (temperature, then top-k, then top-p on what top-k left, renormalised), then the
/// token where the cumulative probability, most probable first (ties: lower id), passes the
/// position's uniform. A pure function of its arguments. Throws ArgumentError for τ < 0,
/// top_k < 0, top_p outside (0, 1] or logits that are empty or not finite.
Choice choose(const Vector& logits, const Sampling& sampling, std::int64_t position, int top = 10);

/// Throws ArgumentError (naming the value) when SAMPLING cannot be used.
void check_sampling(const Sampling& sampling);

}  // namespace attn::gen
