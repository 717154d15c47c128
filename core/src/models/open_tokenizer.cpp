// AttnScope core — a folder's tokenizer.json, for the families that ship one.
// GPL-3.0-or-later.
#include "open_tokenizer.hpp"

#include "attn/tokenizers/hf_tokenizer.hpp"

namespace attn::model {

std::shared_ptr<const Tokenizer> open_tokenizer(const std::string& dir) {
    return std::make_shared<const tok::HfTokenizer>(
        tok::HfTokenizer::load(dir + "/tokenizer.json"));
}

}  // namespace attn::model
