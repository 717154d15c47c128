// AttnScope core — the logit lens of an encoder–decoder: the decoder's residual stream after
// its embedding and after each of its layers, through the final norm and the output head, at
// every target position. GPL-3.0-or-later. The method is in docs/seq2seq.md.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/interventions/lens.hpp"
#include "attn/models/seq2seq.hpp"

namespace attn::interv {

/// The lens of a teacher-forced run of SOURCE and TARGET (the decoder's inputs) under
/// CONTROLS: [decoder layers + 1] matrices of target rows × vocab; row set l < Ld is the stream
/// entering decoder layer l, row set Ld the one leaving the last (equal to the run's logits).
std::vector<Matrix> seq2seq_lens_logits(const model::Seq2SeqModel& model,
                                        const std::vector<std::int32_t>& source,
                                        const std::vector<std::int32_t>& target,
                                        const model::Seq2SeqControls& controls);

/// The lens table of LOGITS (seq2seq_lens_logits'): every target position × (decoder layers +
/// 1), top kLensTop per cell, as lens_table's.
LensTable seq2seq_lens_table(const std::vector<Matrix>& logits);

}  // namespace attn::interv
