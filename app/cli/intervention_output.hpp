// AttnScope — what the command line's interventions add to compute's and census's output.
// GPL-3.0-or-later.
#pragma once

#include "attn/analysis/census.hpp"
#include "attn/io/output/result_writer.hpp"
#include "attn/models/run.hpp"
#include "attn/scene/scene.hpp"
#include "model/induction_test.hpp"

namespace cli {

struct Request;

/// Adds lens_logits [L+1, vocab] (--logit-lens) and head_attribution [L,H], mlp_attribution
/// [L], embed_attribution [1], bias_attribution [1] (--attribute ID) of RUN, a run of MODEL,
/// to OUT. Throws ArgumentError for a token outside the vocabulary.
void addInterventionArrays(const Request& request, const attn::model::Model& model,
                           const attn::model::Run& run, attn::io::ResultStream& out);

}  // namespace cli
