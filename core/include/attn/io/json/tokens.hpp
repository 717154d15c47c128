// AttnScope core — token sequences (.txt) and explicit embeddings (.npy / .csv).
// GPL-3.0-or-later.
//
// A .txt holds either one sentence (a single non-blank line: it is tokenised like typed text)
// or one token per line (several non-blank lines; blank lines are skipped, each token is kept
// verbatim except for the line ending). UTF-8 with or without BOM, LF or CRLF.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "attn/util/types.hpp"

namespace attn::io {

/// The content of a token file; exactly one member is non-empty.
struct TokenText {
    std::string text;                 ///< a sentence, to be tokenised (SceneSpec::text)
    std::vector<std::string> tokens;  ///< explicit tokens, one per line (SceneSpec::tokens)
};

/// Parses token-file bytes; invalid UTF-8, NUL bytes and zero tokens throw FormatError with
/// the byte offset.
TokenText parse_token_text(std::string_view bytes, const std::string& name);

/// Loads a token file.
TokenText load_token_text(const std::string& path);

/// Parses CSV embeddings: one row of comma-separated numbers per token (n × d).
Matrix parse_embeddings_csv(std::string_view text, const std::string& name);

/// Loads embeddings from .npy ([n, d]) or .csv; NaN/Inf rejected with their position.
Matrix load_embeddings(const std::string& path);

/// Throws FormatError unless the embeddings have one row per token.
void check_embeddings(const Matrix& embeddings, std::size_t tokens, const std::string& name);

}  // namespace attn::io
