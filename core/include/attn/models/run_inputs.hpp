// AttnScope core — what a run takes: its text cut to the model's positions, where it reads its
// logits, the memory it keeps. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attn/models/model.hpp"
#include "attn/tokenizers/tokenizer.hpp"

namespace attn::model {

/// TEXT cut to its first MAX_TOKENS tokens of TOKENIZER (whole tokens; never ending inside a
/// UTF-8 character, so the cut text encodes to at most MAX_TOKENS tokens again); TEXT itself
/// when it fits. *CUT, when given, says whether it was cut.
std::string fit_text(const Tokenizer& tokenizer, const std::string& text, Index max_tokens,
                     bool* cut = nullptr);

/// Where a run of IDS reads its logits: for a bidirectional model (INFO.causal false) whose
/// TOKENIZER has a [MASK] token, the first [MASK] among IDS (fill-mask); else none (the last).
std::optional<Index> fill_mask_position(const ModelInfo& info, const Tokenizer& tokenizer,
                                        const std::vector<std::int32_t>& ids);

/// Bytes a run of N tokens keeps (every layer's stages, q, k, v), estimated before running.
double run_bytes(const ModelInfo& info, Index n);

}  // namespace attn::model
