// AttnScope core — an encoder–decoder's teacher-forced run as attention the views show: three
// components (encoder, decoder, cross) of loaded data. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "attn/attention/loaded_attention.hpp"
#include "attn/models/seq2seq.hpp"

namespace attn {

/// Component names of a run's attention, as BertViz names an encoder–decoder's.
inline constexpr const char* kEncoderComponent = "Encoder";
inline constexpr const char* kDecoderComponent = "Decoder";
inline constexpr const char* kCrossComponent = "Cross";

/// The decoder's inputs for TARGET: decoder_start_token_id, then the target tokenizer's ids
/// (`</s>` last), as `attnscope compute --target` feeds them.
std::vector<std::int32_t> decoder_inputs(const model::Seq2SeqFolder& folder,
                                         std::string_view target);

/// RUN's weights as loaded data whose source is FOLDER's directory: "Encoder" (source ×
/// source), "Decoder" (target × target) and "Cross" (target rows × source columns), post-softmax
/// weights labelled with the tokenizers' tokens, opening on "Cross".
AttentionData seq2seq_attention(const model::Seq2SeqFolder& folder, const model::Seq2SeqRun& run);

}  // namespace attn
