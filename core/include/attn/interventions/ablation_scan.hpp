// AttnScope core — each head's ablation effect on one answer's log-probability: the head
// importance scan of a prompt. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/models/model.hpp"
#include "attn/util/progress.hpp"

namespace attn::interv {

/// The log-probability of one answer, and how ablating each head alone moves it.
struct AblationScan {
    double answer_logprob = 0;  ///< log softmax(logits)[answer] at the last position, no ablation
    MatrixD effects;            ///< [layers, heads]: ablated log-probability − answer_logprob
};

/// log softmax(LOGITS)[TOKEN], in double.
double log_probability(const Vector& logits, std::int32_t token);

/// Runs IDS once plainly and once per head with that head ablated (MODE, as
/// RunControls::interventions does it, so each run equals `compute --ablate l.h`), on every
/// core. PROGRESS is told after each run and may cancel. Throws ArgumentError for an answer
/// outside the vocabulary.
AblationScan ablation_scan(const model::Model& model, const std::vector<std::int32_t>& ids,
                           std::int32_t answer, model::AblationMode mode,
                           Progress* progress = nullptr);

}  // namespace attn::interv
