// AttnScope core — a phi3-architecture GGUF file's own fields, read into the Llama family's
// Config. GPL-3.0-or-later.
#pragma once

#include "attn/models/llama/model.hpp"

namespace attn::llama {

/// Phi-3's fused projections, optional window and longrope rotary (rope_factors_long / _short
/// tensors, the original context and the attention factor) from FILE into C, whose head_dim and
/// max_positions are read already; throws FormatError naming the file and the key or tensor.
void read_phi3_gguf(const model::GgufFile& file, Config& c);

}  // namespace attn::llama
