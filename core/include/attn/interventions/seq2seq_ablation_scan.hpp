// AttnScope core — each head's ablation effect on an encoder–decoder's teacher-forced target:
// the head importance scan of a source and a target, for the encoder, the decoder and the
// cross-attention. GPL-3.0-or-later. The method is in docs/seq2seq.md.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/models/seq2seq.hpp"
#include "attn/util/progress.hpp"

namespace attn::interv {

/// The target's log-probability and how ablating each head alone moves it.
struct Seq2SeqAblationScan {
    /// Σ over positions i < nt − 1 of log softmax(logits[i])[target[i + 1]], no head ablated
    /// (beyond CONTROLS'): the log-probability of the target the decoder was fed.
    double target_logprob = 0;
    MatrixD encoder, decoder, cross;  ///< [layers, heads]: ablated log-probability − target_logprob
};

/// The target log-probability of LOGITS (target rows × vocab) for the decoder inputs TARGET.
double target_log_probability(const Matrix& logits, const std::vector<std::int32_t>& target);

/// Runs SOURCE and TARGET (the decoder's inputs, at least two) once under CONTROLS and once per
/// head with that head also ablated by CONTROLS.ablation, on every core. PROGRESS is told after
/// each run and may cancel.
Seq2SeqAblationScan seq2seq_ablation_scan(const model::Seq2SeqModel& model,
                                          const std::vector<std::int32_t>& source,
                                          const std::vector<std::int32_t>& target,
                                          const model::Seq2SeqControls& controls,
                                          Progress* progress = nullptr);

}  // namespace attn::interv
