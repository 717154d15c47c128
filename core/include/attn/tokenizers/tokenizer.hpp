// AttnScope core — what every model family's tokenizer offers the app. GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn::model {

/// How an id past a tokenizer's vocabulary reads: "<id 151685>" (a model's padding row, which no
/// token stands for; see vocabulary.hpp).
std::string unknown_token_text(std::int32_t id);

/// A model's tokenizer (GPT-2's vocab.json + merges.txt, a Hugging Face tokenizer.json, …).
/// Immutable once loaded, so one instance is shared between threads.
class Tokenizer {
  public:
    virtual ~Tokenizer() = default;
    /// The ids of UTF-8 TEXT as the model expects them (with its BOS/CLS/SEP special tokens);
    /// throws ArgumentError when TEXT is not valid UTF-8.
    virtual std::vector<std::int32_t> encode(std::string_view text) const = 0;
    /// The first LIMIT ids of encode(TEXT), and in *MORE (when given) whether there were more.
    virtual std::vector<std::int32_t> encode(std::string_view text, std::size_t limit,
                                             bool* more) const = 0;
    /// The UTF-8 text the ids stand for (invalid byte sequences become U+FFFD); an id past the
    /// vocabulary reads unknown_token_text, a negative one throws ArgumentError.
    virtual std::string decode(const std::vector<std::int32_t>& ids) const = 0;
    /// One token as a user reads it (GPT-2's 'Ġ' and SentencePiece's '▁' shown as spaces); an id
    /// past the vocabulary reads unknown_token_text.
    virtual std::string token_text(std::int32_t id) const = 0;
    /// Labels for a sequence: token_text of each id, with byte-fallback pieces that together
    /// make one character shown as that character on the first piece.
    virtual std::vector<std::string> display_tokens(const std::vector<std::int32_t>& ids) const;
    /// True for special tokens ([CLS], <|endoftext|>, <s>, …).
    virtual bool is_special(std::int32_t id) const = 0;
    /// The id of the token spelled TOKEN exactly (e.g. "[MASK]"), if any.
    virtual std::optional<std::int32_t> token_id(std::string_view token) const = 0;
    /// The number of ids the tokenizer can produce.
    virtual std::size_t vocab_size() const = 0;
};

}  // namespace attn::model
