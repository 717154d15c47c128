// AttnScope core — what a loaded file's own weights say about its mask. GPL-3.0-or-later.
#pragma once

#include "attn/attention/loaded_attention.hpp"

namespace attn::io {

/// True when data holds raw scores and also post-softmax weights that are exactly zero above the
/// diagonal in every head of every layer (a decoder such as GPT-2): its scores need the causal
/// mask to reproduce those weights.
bool scores_need_causal_mask(const AttentionData& data);

}  // namespace attn::io
