// AttnScope core — a folder's tokenizer.json (the Hugging Face tokenizer format lands with its
// own implementation; until then such folders are refused with the reason). GPL-3.0-or-later.
#include "open_tokenizer.hpp"

#include "attn/error.hpp"

namespace attn::model {

std::shared_ptr<const Tokenizer> open_tokenizer(const std::string& dir) {
    throw FormatError(dir + "/tokenizer.json: tokenizer.json support is not built yet");
}

}  // namespace attn::model
