// AttnScope core — a rotary decoder's sizes as the families read and check them, from a
// config.json or a GGUF file's metadata, every message naming the file and the field.
// GPL-3.0-or-later.
#pragma once

#include <memory>
#include <string>

#include "attn/models/gguf_tokenizer.hpp"
#include "attn/models/model.hpp"
#include "attn/util/error.hpp"
#include "attn/weights/gguf.hpp"
#include "gguf_fields.hpp"

namespace attn::model {

/// Refuses C (a config with head_dim, heads and kv_heads) when its head_dim is odd or its
/// kv_heads do not divide its heads, naming PATH and the fields as the file calls them.
template <class C>
void check_rotary_heads(const C& c, const std::string& path, const std::string& head_dim,
                        const std::string& kv_heads, const std::string& heads) {
    if (c.head_dim % 2 != 0)
        throw FormatError(path + ": " + head_dim + " " + std::to_string(c.head_dim) +
                          " is odd; rotary positions rotate pairs");
    if (c.heads % c.kv_heads != 0)
        throw FormatError(path + ": " + kv_heads + " " + std::to_string(c.kv_heads) +
                          " does not divide " + heads + " " + std::to_string(c.heads));
}

/// The sizes ARCH's GGUF metadata states (ARCH.block_count, ARCH.embedding_length, …) into C:
/// head_dim from attention.key_length, else hidden / heads (which must divide); value_length
/// equal to it; then check_rotary_heads.
template <class C>
void read_gguf_sizes(const GgufFile& f, const std::string& arch, C& c) {
    const std::string a = arch + ".";
    c.layers = gguf_positive(f, a + "block_count");
    c.hidden = gguf_positive(f, a + "embedding_length");
    c.intermediate = gguf_positive(f, a + "feed_forward_length");
    c.heads = gguf_positive(f, a + "attention.head_count");
    c.kv_heads = gguf_positive(f, a + "attention.head_count_kv", c.heads);
    c.max_positions = gguf_positive(f, a + "context_length");
    if (c.hidden % c.heads != 0 && !f.metadata().count(a + "attention.key_length"))
        throw FormatError(f.path() + ": " + a + "attention.head_count " + std::to_string(c.heads) +
                          " does not divide " + a + "embedding_length " + std::to_string(c.hidden));
    c.head_dim = gguf_positive(f, a + "attention.key_length", c.hidden / c.heads);
    if (gguf_positive(f, a + "attention.value_length", c.head_dim) != c.head_dim)
        throw FormatError(f.path() + ": " + a + "attention.value_length differs from " + a +
                          "attention.key_length; AttnScope runs equal ones");
    check_rotary_heads(c, f.path(), a + "attention.key_length", a + "attention.head_count_kv",
                       a + "attention.head_count");
}

/// The vocabulary: token_embd.weight's rows; refused when the tensor is missing or not a
/// matrix of at most 2²⁴ rows.
inline int gguf_vocab(const GgufFile& f) {
    const GgufTensor* embd = f.find("token_embd.weight");
    if (!embd) throw FormatError(f.path() + ": tensor \"token_embd.weight\" is missing.");
    if (embd->dims.size() != 2 || embd->dims[1] > (1u << 24))
        throw FormatError(f.path() + ": tensor \"token_embd.weight\" is not a matrix of at most " +
                          std::to_string(1u << 24) + " rows.");
    return int(embd->dims[1]);
}

/// The GGUF file at PATH opened as family M (M::open_gguf) with the tokenizer it embeds; a
/// tokenizer of more ids than token_embd.weight's rows is refused naming the file, the rows
/// past its ids are padding (M::set_text_vocab).
template <class M>
ModelFolder open_gguf_with_tokenizer(const std::string& path) {
    const auto file = std::make_shared<const GgufFile>(path);
    ModelFolder f;
    f.dir = path;
    const auto model = M::open_gguf(file);
    f.model = model;
    f.tokenizer = gguf_tokenizer(*file);
    if (Index(f.tokenizer->vocab_size()) > model->config().vocab)
        throw FormatError(path + ": the tokenizer has " +
                          std::to_string(f.tokenizer->vocab_size()) +
                          " tokens, more than token_embd.weight's " +
                          std::to_string(model->config().vocab) + " rows");
    model->set_text_vocab(int(f.tokenizer->vocab_size()));
    return f;
}

}  // namespace attn::model
