// AttnScope core — the one rule for a model's padding ids: embedding rows past the tokenizer's
// vocabulary (Qwen2.5 has 151 936 rows for 151 669 tokens). They are real rows of the model, but
// no text stands for them: nothing chooses or lists one, and their text reads "<id N>".
// GPL-3.0-or-later.
#pragma once

#include <cstdint>

#include "attn/models/model.hpp"
#include "attn/util/types.hpp"

namespace attn::model {

/// The number of ids a text can stand for: [0, text_vocab) (info.vocab when every id can).
Index text_vocab(const ModelInfo& info);

/// Whether ID is a padding id of the model: inside its vocab, past the tokenizer's.
bool is_padding(const ModelInfo& info, std::int32_t id);

/// LOGITS (one per id) with every padding id's logit at −∞, so that no argmax, draw, top-k
/// list or softmax of them picks one.
Vector without_padding(const ModelInfo& info, Vector logits);

/// The same for every row of LOGITS (rows × vocab, as the logit lens has them).
Matrix without_padding(const ModelInfo& info, Matrix logits);

}  // namespace attn::model
