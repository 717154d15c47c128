// AttnScope core — tokens to embeddings, positional encodings. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attn/util/types.hpp"

namespace attn {

/// Splits UTF-8 text into words and punctuation marks ("Area." → "Area", "."); whitespace is
/// dropped; numbers like "1992" and contractions stay whole. Invalid UTF-8 throws FormatError.
std::vector<std::string> tokenize(std::string_view text);

/// Deterministic token embeddings (n × d): each distinct token string maps to the same
/// unit-variance vector for a given seed (FNV-1a hash of the text seeds the generator).
Matrix hashed_embeddings(const std::vector<std::string>& tokens, Index d_model, std::uint64_t seed);

/// Kind of positional information added to embeddings.
enum class PositionalKind { Sinusoidal, Learned, None };

/// n × d positional encodings: Vaswani sinusoids, seeded random "learned" table, or zeros.
Matrix positional_encoding(PositionalKind kind, Index n, Index d_model, std::uint64_t seed);

/// Stable identifier ("sinusoidal", "learned", "none").
std::string_view to_string(PositionalKind kind);
/// Parses an identifier of to_string; throws ArgumentError.
PositionalKind positional_kind_from_string(std::string_view name);

}  // namespace attn
