// AttnScope core — activation patching of an encoder–decoder: each head of the encoder, the
// decoder and the cross-attention patched from the clean run into the corrupted one, as
// patching.hpp's head map. GPL-3.0-or-later. The method is in docs/seq2seq.md.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/interventions/patching.hpp"
#include "attn/models/seq2seq.hpp"

namespace attn::interv {

/// What to patch: a clean and a corrupted source of equal token count, and a clean and a
/// corrupted target (the decoder's inputs) of equal token count; either pair may be the same.
struct Seq2SeqPatchSpec {
    std::vector<std::int32_t> clean_source, corrupt_source;
    std::vector<std::int32_t> clean_target, corrupt_target;
    std::int32_t answer = 0, wrong = 0;  ///< compared at the last target position
    model::Seq2SeqControls controls;     ///< applied to every run
};

/// Fractions of the logit difference restored, (patched − corrupt) / (clean − corrupt), per head.
struct Seq2SeqPatchResult {
    double clean_diff = 0, corrupt_diff = 0;  ///< answer − wrong at the last target position
    double logit_scale = 0;          ///< standard deviation of the clean run's logits there
    Matrix encoder, decoder, cross;  ///< [layers, heads] of each attention
    /// unstable_span of this result's differences and scale.
    bool unstable() const { return unstable_span(clean_diff, corrupt_diff, logit_scale); }
    /// The map of PART.
    const Matrix& of(model::Component part) const {
        return part == model::Component::Encoder   ? encoder
               : part == model::Component::Decoder ? decoder
                                                   : cross;
    }
};

/// Patches every head of SPEC's corrupted run with the clean run's z (every position of it).
/// PROGRESS is told after each patched run and may cancel (attn::Cancelled). Throws
/// ArgumentError for sources or targets of unequal length (naming both), answers outside the
/// vocabulary, and answers whose difference is the same in both runs.
Seq2SeqPatchResult seq2seq_patch(const model::Seq2SeqModel& model, const Seq2SeqPatchSpec& spec,
                                 Progress* progress = nullptr);

}  // namespace attn::interv
