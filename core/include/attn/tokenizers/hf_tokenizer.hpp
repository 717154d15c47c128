// AttnScope core — Hugging Face tokenizer.json tokenizers (Llama, Mistral, Qwen, Gemma, BERT…).
// GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/tokenizers/tokenizer.hpp"

namespace attn::tok {

struct HfTokenizerData;

/// One token as the user sees it: readable text, whether it is a special token, and whether it
/// continues the character its previous token began (byte pieces of one UTF-8 character).
struct TokenLabel {
    std::string text;
    bool special = false;
    bool continues = false;
};

/// A tokenizer read from a Hugging Face tokenizer.json: added tokens, normalizer,
/// pre-tokenizer, model (BPE or WordPiece), post-processor and decoder, each as the Hugging Face
/// tokenizers library runs them. Immutable once loaded (its BPE word cache is locked), so one
/// tokenizer may be shared by threads; copies share the loaded data.
class HfTokenizer final : public model::Tokenizer {
  public:
    /// Reads PATH (a tokenizer.json); throws FormatError naming the file, the component and the
    /// problem (a component type AttnScope does not run is refused by name).
    static HfTokenizer load(const std::string& path);
    /// Parses JSON as if read from a file called NAME (the name in every error message).
    static HfTokenizer parse(std::string_view json, const std::string& name);

    /// The token ids of UTF-8 TEXT with the post-processor's special tokens (BOS, CLS/SEP…);
    /// throws ArgumentError when TEXT is not valid UTF-8.
    std::vector<std::int32_t> encode(std::string_view text) const override;
    /// The first LIMIT ids of encode(TEXT), and in *MORE (when given) whether there are more.
    /// A long TEXT is tokenized only as far as those ids need.
    std::vector<std::int32_t> encode(std::string_view text, std::size_t limit,
                                     bool* more) const override;
    /// The text the ids stand for, through the file's decoder (special tokens kept).
    std::string decode(const std::vector<std::int32_t>& ids) const override;
    /// One token as a label: spaces for Ġ and ▁, a byte piece <0xNN> as its character when that
    /// byte alone is printable text (else "<0xNN>"), special tokens as they are written.
    std::string token_text(std::int32_t id) const override;
    /// Whether ID is one of the file's special added tokens ([CLS], <|begin_of_text|>…).
    bool is_special(std::int32_t id) const override;
    /// The id of TOKEN as written in the vocabulary or the added tokens ("[MASK]").
    std::optional<std::int32_t> token_id(std::string_view token) const override;
    /// One more than the largest id of the vocabulary and the added tokens.
    std::size_t vocab_size() const override;

    /// One label per id: consecutive byte pieces that together make UTF-8 characters show those
    /// characters on their first piece and "" on the pieces that continue them; specials as-is.
    std::vector<std::string> display_tokens(const std::vector<std::int32_t>& ids) const override;
    /// display_tokens with each label's special and continuation flags.
    std::vector<TokenLabel> display_labels(const std::vector<std::int32_t>& ids) const;

  private:
    explicit HfTokenizer(std::shared_ptr<const HfTokenizerData> data) : d_(std::move(data)) {}
    std::vector<std::int32_t> encode_all(std::string_view text) const;

    std::shared_ptr<const HfTokenizerData> d_;
};

}  // namespace attn::tok
