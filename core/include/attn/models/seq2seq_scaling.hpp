// AttnScope core — whether an encoder–decoder's run scales its scores: the one rule the run's
// multiplier and the controls that show it follow. GPL-3.0-or-later.
#pragma once

#include "attn/models/seq2seq.hpp"

namespace attn::model {

/// Whether every score of a run under CONTROLS is multiplied by 1/√head_dim: the controls'
/// choice, else the family's own (Marian scales, T5 does not).
bool scales_scores(const Seq2SeqInfo& info, const Seq2SeqControls& controls);

}  // namespace attn::model
