// AttnScope core — UTF-8 decoding and encoding shared by the text readers. GPL-3.0-or-later.
#include "utf8.hpp"

#include <cstdio>
#include <optional>

#include "attn/util/utf8_check.hpp"

#include "attn/util/error.hpp"

namespace attn::detail {

namespace {

/// The code point at S[I] and its length, or nothing with WHY set when it is not valid UTF-8.
std::optional<CodePoint> code_point_at(std::string_view s, std::size_t i, const char*& why) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    std::size_t len;
    char32_t cp;
    if (b0 < 0x80) return CodePoint{b0, i, 1};
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2, cp = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3, cp = b0 & 0x0F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4, cp = b0 & 0x07;
    } else {
        why = "byte is not a valid lead byte";
        return std::nullopt;
    }
    if (i + len > s.size()) {
        why = "sequence is truncated";
        return std::nullopt;
    }
    for (std::size_t k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0) != 0x80) {
            why = "expected a continuation byte";
            return std::nullopt;
        }
        cp = (cp << 6) | (b & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000))
        why = "overlong encoding";
    else if (cp >= 0xD800 && cp <= 0xDFFF)
        why = "encoded surrogate";
    else if (cp > 0x10FFFF)
        why = "code point above U+10FFFF";
    else
        return CodePoint{cp, i, len};
    return std::nullopt;
}

/// The FormatError of an invalid sequence at S[I]: its offset, its first byte and why.
[[noreturn]] void invalid_at(std::string_view s, std::size_t i, const char* why) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", unsigned(static_cast<unsigned char>(s[i])));
    throw FormatError("Invalid UTF-8 in the text at byte " + std::to_string(i) + " (" + byte +
                      "): " + why + ".");
}

}  // namespace

std::vector<CodePoint> decode_utf8(std::string_view s) {
    std::vector<CodePoint> out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const char* why = "";
        const auto c = code_point_at(s, i, why);
        if (!c) invalid_at(s, i, why);
        out.push_back(*c);
        i += c->size;
    }
    return out;
}

}  // namespace attn::detail

namespace attn {

void check_utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const char* why = "";
        const auto c = detail::code_point_at(s, i, why);
        if (!c) detail::invalid_at(s, i, why);
        i += c->size;
    }
}

}  // namespace attn

namespace attn::detail {

void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

std::string repair_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const char* why = "";
        if (const auto c = code_point_at(s, i, why)) {
            out.append(s.substr(i, c->size));
            i += c->size;
        } else {
            append_utf8(out, 0xFFFD);
            ++i;
        }
    }
    return out;
}

namespace {

void append_byte_name(std::string& out, unsigned char b) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    out += "<0x";
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
    out += '>';
}

}  // namespace

std::string readable_token_bytes(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const char* why = "";
        const auto c = code_point_at(s, i, why);
        const std::size_t n = c ? c->size : 1;
        // C0, DEL and C1 controls draw as boxes or nothing, so they are named like broken bytes.
        const bool control = c && (c->cp < 0x20 || (c->cp >= 0x7F && c->cp < 0xA0));
        if (c && !control)
            out.append(s.substr(i, n));
        else
            for (std::size_t k = 0; k < n; ++k)
                append_byte_name(out, static_cast<unsigned char>(s[i + k]));
        i += n;
    }
    return out;
}

}  // namespace attn::detail
