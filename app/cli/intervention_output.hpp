// AttnScope — what the command line's interventions add to compute's and census's output.
// GPL-3.0-or-later.
#pragma once

#include "attn/analysis/census.hpp"
#include "attn/io/output/result_writer.hpp"
#include "attn/models/run.hpp"
#include "attn/scene/scene.hpp"

namespace cli {

struct Request;

/// Adds lens_logits [L+1, vocab] (--logit-lens) and head_attribution [L,H], mlp_attribution
/// [L], embed_attribution [1], bias_attribution [1] (--attribute ID) of RUN, a run of MODEL,
/// to OUT. Throws ArgumentError for a token outside the vocabulary.
void addInterventionArrays(const Request& request, const attn::model::Model& model,
                           const attn::model::Run& run, attn::io::ResultStream& out);

/// The census of SPEC's model run on the induction test (kInductionSeed; half the model's
/// positions, at most 50 tokens, after <|endoftext|> when the vocabulary has it) with the
/// induction column the test's score of each head.
attn::Census inductionCensus(const attn::SceneSpec& spec);

/// The seed of the command line's induction test.
inline constexpr std::uint64_t kInductionSeed = 0;

}  // namespace cli
