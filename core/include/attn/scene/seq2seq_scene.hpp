// AttnScope core — an encoder–decoder's teacher-forced run as attention the views show: three
// components (encoder, decoder, cross) of loaded data. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "attn/attention/loaded_attention.hpp"
#include "attn/models/seq2seq.hpp"

namespace attn {

/// COMPONENT's name in a run's attention, as BertViz names an encoder–decoder's: "Encoder",
/// "Decoder" or "Cross".
const char* component_title(model::Component component);

/// The component of a run the component INDEX of DATA shows (by its title); none when DATA's
/// component INDEX is no run's or does not exist.
std::optional<model::Component> shown_component(const AttentionData& data, Index index);

/// The index of DATA's component showing COMPONENT (by its title), or −1 when it has none.
Index component_index(const AttentionData& data, model::Component component);

/// The decoder's inputs for TARGET: decoder_start_token_id, then the target tokenizer's ids
/// (`</s>` last), as `attnscope compute --target` feeds them.
std::vector<std::int32_t> decoder_inputs(const model::Seq2SeqFolder& folder,
                                         std::string_view target);

/// RUN's weights as loaded data whose source is FOLDER's directory: "Encoder" (source ×
/// source), "Decoder" (target × target) and "Cross" (target rows × source columns), post-softmax
/// weights labelled with the tokenizers' tokens, opening on "Cross".
AttentionData seq2seq_attention(const model::Seq2SeqFolder& folder, const model::Seq2SeqRun& run);

}  // namespace attn
