// AttnScope core — what a loaded tokenizer.json holds. GPL-3.0-or-later.
#pragma once

#include "added_vocabulary.hpp"
#include "attn/tokenizers/hf_tokenizer.hpp"
#include "parts.hpp"

#include "vocab_sax.hpp"

namespace attn::tok {

struct HfTokenizerData {
    std::string name;  // the file, for messages
    std::vector<detail::AddedToken> added;
    detail::AddedMatcher raw_added, normalized_added;
    std::unordered_map<std::string, std::int32_t> added_ids;
    std::unique_ptr<detail::Normalizer> normalizer;
    std::unique_ptr<detail::PreTokenizer> pre_tokenizer;
    std::unique_ptr<detail::Model> model;
    std::unique_ptr<detail::PostProcessor> post_processor;
    std::unique_ptr<detail::Decoder> decoder;
    std::vector<std::string> id_to_token;  // the added token's content where one has the id
    std::vector<char> special;             // by id
};

namespace detail {
/// Builds the tokenizer of a parsed tokenizer.json called NAME; VOCAB, when given, is its
/// model's vocabulary read apart (parse_with_vocab), taken from it.
std::shared_ptr<HfTokenizerData> build_tokenizer(const Json& j, const std::string& name,
                                                 VocabMap* vocab = nullptr);
}  // namespace detail

}  // namespace attn::tok
