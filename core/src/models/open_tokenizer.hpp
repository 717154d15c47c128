// AttnScope core — a folder's tokenizer.json, for the families that ship one.
// GPL-3.0-or-later.
#pragma once

#include <memory>
#include <string>

#include "attn/tokenizers/tokenizer.hpp"

namespace attn::model {

/// DIR's tokenizer.json; throws FormatError naming the file.
std::shared_ptr<const Tokenizer> open_tokenizer(const std::string& dir);

}  // namespace attn::model
