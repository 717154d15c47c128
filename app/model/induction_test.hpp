// AttnScope — the induction test of a model run (random tokens repeated twice), for the window
// and the command line alike. GPL-3.0-or-later.
#pragma once

#include <cstdint>

#include "attn/analysis/census.hpp"
#include "attn/scene/scene.hpp"

/// The seed of the induction test's random tokens (the window's and `census --induction`'s).
inline constexpr std::uint64_t kInductionSeed = 0;

/// The census of SPEC's model run on the induction test (kInductionSeed; half the model's
/// positions, at most 50 tokens, after <|endoftext|> when the vocabulary has it) with the
/// induction column the test's score of each head. SPEC's ablations and knockouts apply.
attn::Census inductionCensus(const attn::SceneSpec& spec);

/// The random tokens in each half of SPEC's induction test.
long long inductionHalf(const attn::SceneSpec& spec);
