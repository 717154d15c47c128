// AttnScope core — one entry point for every file AttnScope opens. GPL-3.0-or-later.
#pragma once

#include <string>
#include <variant>

#include "attn/attention/loaded_attention.hpp"
#include "attn/io/json/tokens.hpp"
#include "attn/io/session/session.hpp"
#include "attn/util/progress.hpp"

namespace attn::io {

/// What a file turned out to hold.
enum class FileKind {
    Npy,            ///< NumPy .npy attention tensor
    Npz,            ///< NumPy .npz archive (attention and/or scores, tokens)
    AttentionJson,  ///< BertViz or CircuitsVis payload
    Tokens,         ///< token sequence (.txt)
    Session,        ///< AttnScope session
};

/// The content of an opened file: loaded attention, a token sequence, or a session.
using Loaded = std::variant<AttentionData, TokenText, Session>;

/// Recognises a file by its content (magic bytes, JSON "format") and then its extension
/// (.npy, .npz, .json, .txt, .attnscope); throws FormatError for anything else.
FileKind detect_format(const std::string& path);

/// Loads any supported file; errors name the file, the problem and where.
Loaded load_any(const std::string& path, Progress* progress = nullptr);

/// Loads attention (.npy, .npz, BertViz/CircuitsVis JSON); other kinds throw FormatError.
AttentionData load_attention(const std::string& path, Progress* progress = nullptr);

/// Stable identifier of a kind ("npy", "npz", "attention-json", "tokens", "session").
const char* to_string(FileKind kind);

}  // namespace attn::io
