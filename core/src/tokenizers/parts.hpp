// AttnScope core — the stages of a Hugging Face tokenizer: normalizer, pre-tokenizer, model,
// post-processor, decoder. Each is built from its tokenizer.json object by a make_* function
// that refuses, by name, any type or option it does not run. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "json_fields.hpp"

namespace attn::tok::detail {

/// A piece of text between the pre-tokenizer's cuts; FIRST when it starts the original text
/// (Metaspace's prepend_scheme "first" adds its ▁ only there).
struct Piece {
    std::string text;
    bool first = false;
};

class Normalizer {
  public:
    virtual ~Normalizer() = default;
    virtual std::string normalize(std::string s) const = 0;
};

class PreTokenizer {
  public:
    virtual ~PreTokenizer() = default;
    /// Replaces each piece by its parts (empty parts are dropped by the caller).
    virtual void apply(std::vector<Piece>& pieces) const = 0;
};

class Model {
  public:
    virtual ~Model() = default;
    /// Appends the ids of one pre-tokenized WORD to OUT.
    virtual void tokenize(std::string_view word, std::vector<std::int32_t>& out) const = 0;
    /// The model's vocabulary, token → id.
    virtual const std::unordered_map<std::string, std::int32_t>& vocab() const = 0;
};

class PostProcessor {
  public:
    virtual ~PostProcessor() = default;
    /// Adds the special tokens of a single sequence around IDS.
    virtual void process(std::vector<std::int32_t>& ids) const = 0;
};

class Decoder {
  public:
    virtual ~Decoder() = default;
    /// Hugging Face's decode_chain. LABEL: one token shown alone, so nothing is stripped for
    /// being first (a label keeps its leading space).
    virtual void decode_chain(std::vector<std::string>& tokens, bool label) const = 0;
};

std::unique_ptr<Normalizer> make_normalizer(const Json& j, const Where& w);
/// SentencePiece's Precompiled normalizer from its base64 precompiled_charsmap.
std::unique_ptr<Normalizer> make_precompiled(const Json& j, const Where& w);
std::unique_ptr<PreTokenizer> make_pre_tokenizer(const Json& j, const Where& w);
/// The model at J; VOCAB, when given, is its {token: id} vocabulary read apart (taken).
std::unique_ptr<Model> make_model(const Json& j, const Where& w,
                                  std::unordered_map<std::string, std::int32_t>* vocab = nullptr);
std::unique_ptr<PostProcessor> make_post_processor(const Json& j, const Where& w);
std::unique_ptr<Decoder> make_decoder(const Json& j, const Where& w);

/// GPT-2's byte ↔ character map (bytes_to_unicode): printable Latin-1 bytes stand for
/// themselves, the other 68 move to U+0100 onwards.
const std::vector<std::string>& byte_chars();
/// The byte that character CP stands for in byte_chars, or -1.
int char_byte(char32_t cp);

/// The byte of a byte-fallback token "<0xNN>", or -1.
int fallback_byte(std::string_view token);

}  // namespace attn::tok::detail
