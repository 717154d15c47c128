// AttnScope core — tokenizer.json parsed with its model's {token: id} vocabulary read straight
// into a hash map, not into the JSON tree. Internal. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "json_fields.hpp"

namespace attn::tok::detail {

/// A vocabulary object {token: id}, as read_vocab gives it.
using VocabMap = std::unordered_map<std::string, std::int32_t>;

/// Parses JSON into OUT, except that an object at model.vocab is left empty in OUT and its
/// entries go to VOCAB: a 256,000-token vocabulary as a tree of JSON values was about half of
/// a large tokenizer's load. Returns false, OUT and VOCAB unspecified, when the text is not
/// valid JSON or that object is not one of ids in [0, kMaxId): the caller then parses the text
/// plainly, whose errors say what is wrong.
bool parse_with_vocab(std::string_view json, Json& out, std::optional<VocabMap>& vocab);

/// Parses JSON that is one object {token: id} (Marian's vocab.json) into VOCAB, the last of a
/// repeated token winning. Returns false when it is anything else (not JSON, another value, an
/// id not in [0, kMaxId)): the caller then parses it plainly, whose errors say what is wrong.
bool parse_vocab_object(std::string_view json, VocabMap& vocab);

}  // namespace attn::tok::detail
