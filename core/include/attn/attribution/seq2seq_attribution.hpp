// AttnScope core — token attributions of one prediction of an encoder–decoder (Marian, T5): the
// gradient methods over the source and the target tokens, attention × gradient and the
// norm-based contributions of every encoder, decoder and cross-attention head; what
// `attnscope attribute --model SEQ2SEQ_DIR` writes (docs/attribution.md). GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attn/attribution/token_attribution.hpp"
#include "attn/models/seq2seq.hpp"

namespace attn::attrib {

/// What to explain in a teacher-forced run and how.
struct Seq2SeqAttributionRequest {
    std::optional<Index> position;       ///< P, a decoder position; none: the last
    std::optional<std::int32_t> target;  ///< t; none: the argmax of the logits at P
    std::vector<std::string> methods;    ///< seq2seq_method_names(); empty: every one
    int steps = 32;                      ///< M of integrated gradients
    model::Seq2SeqControls controls;     ///< the run explained, as changed by its controls
};

/// The methods defined for an encoder–decoder, by the names of #39.
const std::vector<std::string>& seq2seq_method_names();

/// Empty when METHOD is defined for an encoder–decoder; else why not (rollout, flow, ALTI and
/// value zeroing compose one stack's layers and have no definition over two stacks).
std::string seq2seq_unavailable(const std::string& method);

/// The methods of REQUEST on SOURCE encoded and TARGET (the decoder's inputs) fed; arrays named
/// source_*, target_*, ig_delta, encoder_*, decoder_* and cross_*. Throws ArgumentError for a
/// method refused, a position or target outside the run, or a family without a description,
/// and ResourceError for work past the limit of every attribution (2·10¹² operations) before
/// any is done; PROGRESS may cancel.
AttributionResult attribute_seq2seq(const model::Seq2SeqModel& model,
                                    const std::vector<std::int32_t>& source,
                                    const std::vector<std::int32_t>& target,
                                    const Seq2SeqAttributionRequest& request,
                                    Progress* progress = nullptr);

}  // namespace attn::attrib
