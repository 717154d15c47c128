// AttnScope core — the tokenizer a GGUF file embeds. GPL-3.0-or-later.
#pragma once

#include <memory>

#include "attn/tokenizers/tokenizer.hpp"
#include "attn/weights/gguf.hpp"

namespace attn::model {

/// The tokenizer FILE embeds: tokenizer.ggml.model "gpt2" (tokens, merges, the pre-tokenizer
/// tokenizer.ggml.pre names) or "llama" (SentencePiece: tokens, scores, token types, byte
/// fallback), with its special tokens and add_bos / add_eos; throws FormatError naming the file
/// and the key (an unknown model or pre-tokenizer refused by name).
std::shared_ptr<const Tokenizer> gguf_tokenizer(const GgufFile& file);

}  // namespace attn::model
