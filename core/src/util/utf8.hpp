// AttnScope core — UTF-8 decoding and encoding shared by the text readers. GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attn::detail {

/// One decoded code point and where its bytes sit in the input.
struct CodePoint {
    char32_t cp;
    std::size_t begin, size;
};

/// The code points of S; throws FormatError naming the byte offset on invalid UTF-8.
std::vector<CodePoint> decode_utf8(std::string_view s);

/// Appends CP to OUT as UTF-8.
void append_utf8(std::string& out, char32_t cp);

/// S with every invalid byte sequence replaced by U+FFFD (for bytes that may end mid-character).
std::string repair_utf8(std::string_view s);

/// S as a token label: every byte that is no character on its own (a partial UTF-8 sequence)
/// and every control character shown as its bytes, "<0xC3>", as byte-fallback vocabularies
/// spell them, so that two different bytes never look alike.
std::string readable_token_bytes(std::string_view s);

}  // namespace attn::detail
