// AttnScope core — a folder's tokenizer.json, for the families that ship one.
// GPL-3.0-or-later.
#include "open_tokenizer.hpp"

#include "attn/error.hpp"

// The Hugging Face tokenizer format is built on its own branch: once it is in the tree, folders
// with a tokenizer.json open through it; until then they are refused with the reason.
#if __has_include("attn/tokenizers/hf_tokenizer.hpp")
#include "attn/tokenizers/hf_tokenizer.hpp"
#define ATTN_HAS_HF_TOKENIZER 1
#endif

namespace attn::model {

std::shared_ptr<const Tokenizer> open_tokenizer(const std::string& dir) {
#ifdef ATTN_HAS_HF_TOKENIZER
    return std::make_shared<const tok::HfTokenizer>(
        tok::HfTokenizer::load(dir + "/tokenizer.json"));
#else
    throw FormatError(dir + "/tokenizer.json: tokenizer.json support is not built yet");
#endif
}

}  // namespace attn::model
