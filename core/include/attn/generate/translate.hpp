// AttnScope core — translation with an encoder–decoder: greedy or beam search over the decoder,
// its keys and values cached (docs/seq2seq.md). GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/models/seq2seq.hpp"

namespace attn::gen {

/// How to search.
struct TranslateOptions {
    int beam = 1;                 ///< B hypotheses (1: greedy)
    int max_tokens = 64;          ///< N: at most this many generated tokens (and positions)
    double length_penalty = 1.0;  ///< α: a hypothesis scores Σ log p / len^α
    model::Seq2SeqControls controls;
    /// Also keep the attention weights of the search's own steps (Translation::run), instead
    /// of running the output teacher-forced once more.
    bool weights = false;
};

/// The search's answer.
struct Translation {
    std::vector<std::int32_t> output;  ///< generated ids (no start token), `</s>` last if finished
    double score = 0;                  ///< Σ log p / len^α
    bool finished = false;             ///< ended with `</s>` (else N was reached)
    /// With TranslateOptions::weights: the source, the decoder's inputs (the start token, then
    /// the output) and the encoder, decoder and cross weights teacher_forced gives for them,
    /// gathered from the cached steps (logits left empty).
    model::Seq2SeqRun run;
};

/// Translates SOURCE (ids): B live hypotheses, each extended by every token; the best B − F
/// extensions stay live (F: hypotheses finished so far, ranked by Σ log p, ties to the earlier
/// hypothesis, then the smaller id); one ending in `</s>` is finished; the search stops when B
/// are finished or N tokens were generated, then every hypothesis competes by Σ log p / len^α
/// (len: generated tokens, `</s>` included), ties to the earlier-found. Throws ArgumentError for
/// B < 1 or N < 1.
Translation translate(const model::Seq2SeqModel& model, const std::vector<std::int32_t>& source,
                      const TranslateOptions& options);

}  // namespace attn::gen
