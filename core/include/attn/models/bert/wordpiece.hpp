// AttnScope core — BERT's WordPiece tokenizer from a vocab.txt. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attn/tokenizers/tokenizer.hpp"

namespace attn::bert {

/// BERT's tokenizer read from vocab.txt (one token per line, the line number its id): the text
/// is split at whitespace and punctuation (ASCII letters lower-cased when LOWER; special tokens
/// such as [MASK] written in the text kept whole), each word cut greedily into the longest
/// vocabulary pieces ("##" marking a piece inside a word; [UNK] when none fits), and wrapped in
/// [CLS] … [SEP]. Accents are not stripped (no Unicode normalisation here): a tokenizer.json
/// reader does the full Hugging Face pipeline. Immutable once loaded, so safe to share.
class WordPieceTokenizer : public model::Tokenizer {
  public:
    /// Reads PATH; throws FormatError naming the file when it is empty, not UTF-8, repeats a
    /// token or lacks [CLS], [SEP] or [UNK].
    static WordPieceTokenizer load(const std::string& path, bool lower = true);

    std::vector<std::int32_t> encode(std::string_view text) const override;
    std::vector<std::int32_t> encode(std::string_view text, std::size_t limit,
                                     bool* more) const override;
    /// The words again: pieces joined, "##" pieces glued to the word before; without [CLS],
    /// [PAD] and a closing [SEP].
    std::string decode(const std::vector<std::int32_t>& ids) const override;
    /// The vocabulary's spelling of ID ("##ing" keeps its marks: it continues a word).
    std::string token_text(std::int32_t id) const override;
    /// Bracketed tokens: [CLS], [SEP], [MASK], [PAD], [UNK], [unused…].
    bool is_special(std::int32_t id) const override;
    std::optional<std::int32_t> token_id(std::string_view token) const override;
    std::size_t vocab_size() const override { return tokens_.size(); }

  private:
    void encode_word(std::string_view word, std::vector<std::int32_t>& out) const;

    std::vector<std::string> tokens_;
    std::unordered_map<std::string, std::int32_t> ids_;
    std::vector<std::string> specials_;  ///< special tokens present, matched whole in the text
    std::int32_t cls_ = 0, sep_ = 0, unk_ = 0;
    bool lower_ = true;
};

}  // namespace attn::bert
