// AttnScope core — Unicode operations for tokenizers, from ICU. GPL-3.0-or-later.
#include "unicode.hpp"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>

#include "attn/util/error.hpp"

namespace attn::tok::detail {

std::string normalize(std::string_view s, NormForm form) {
    UErrorCode err = U_ZERO_ERROR;
    const icu::Normalizer2* n = nullptr;
    switch (form) {
        case NormForm::NFC:
            n = icu::Normalizer2::getNFCInstance(err);
            break;
        case NormForm::NFD:
            n = icu::Normalizer2::getNFDInstance(err);
            break;
        case NormForm::NFKC:
            n = icu::Normalizer2::getNFKCInstance(err);
            break;
        case NormForm::NFKD:
            n = icu::Normalizer2::getNFKDInstance(err);
            break;
    }
    if (U_FAILURE(err) || !n) throw Error("ICU has no Unicode normalizer");
    // ASCII is in every normalization form already: most text needs no conversion.
    bool ascii = true;
    for (const unsigned char c : s)
        if (c >= 0x80) {
            ascii = false;
            break;
        }
    if (ascii) return std::string(s);
    const icu::UnicodeString in =
        icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), std::int32_t(s.size())));
    const icu::UnicodeString out = n->normalize(in, err);
    if (U_FAILURE(err)) throw Error(std::string("ICU normalization failed: ") + u_errorName(err));
    std::string result;
    out.toUTF8String(result);
    return result;
}

std::string lowercase(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        const auto b = static_cast<unsigned char>(s[i]);
        if (b < 0x80) {
            out += char(b >= 'A' && b <= 'Z' ? b + 32 : b);
            ++i;
            continue;
        }
        const char32_t c = next_cp(s, i);
        // One character at a time: the full mapping without context, so Σ stays σ at a word's
        // end as in Rust (ICU's string lowering would make it ς).
        UChar in[2];
        std::int32_t n = 0;
        U16_APPEND_UNSAFE(in, n, c);
        UChar low[8];
        UErrorCode err = U_ZERO_ERROR;
        const std::int32_t m = u_strToLower(low, 8, in, n, "", &err);
        if (U_FAILURE(err)) {
            put_cp(out, c);
            continue;
        }
        for (std::int32_t k = 0; k < m;) {
            UChar32 lc;
            U16_NEXT(low, k, m, lc);
            put_cp(out, char32_t(lc));
        }
    }
    return out;
}

char32_t next_cp(std::string_view s, std::size_t& i) {
    UChar32 c;
    std::int32_t at = std::int32_t(i);
    U8_NEXT(reinterpret_cast<const std::uint8_t*>(s.data()), at, std::int32_t(s.size()), c);
    i = std::size_t(at);
    return c < 0 ? 0xFFFD : char32_t(c);
}

void put_cp(std::string& out, char32_t cp) {
    char buf[4];
    std::int32_t n = 0;
    UBool error = false;
    U8_APPEND(reinterpret_cast<std::uint8_t*>(buf), n, 4, UChar32(cp), error);
    if (error) return put_cp(out, 0xFFFD);
    out.append(buf, std::size_t(n));
}

bool is_white_space(char32_t c) {
    return u_hasBinaryProperty(UChar32(c), UCHAR_WHITE_SPACE);
}

bool is_punctuation(char32_t c) {
    if (c < 0x80)
        return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
               (c >= 123 && c <= 126);
    return u_ispunct(UChar32(c));
}

bool is_numeric(char32_t c) {
    const auto m = U_GET_GC_MASK(UChar32(c));
    return (m & U_GC_N_MASK) != 0;
}

bool is_other(char32_t c) {
    return (U_GET_GC_MASK(UChar32(c)) & U_GC_C_MASK) != 0;
}

bool is_mark_nonspacing(char32_t c) {
    return u_charType(UChar32(c)) == U_NON_SPACING_MARK;
}

bool is_mark(char32_t c) {
    return (U_GET_GC_MASK(UChar32(c)) & U_GC_M_MASK) != 0;
}

bool is_word_char(char32_t c) {
    const auto m = U_GET_GC_MASK(UChar32(c));
    return u_hasBinaryProperty(UChar32(c), UCHAR_ALPHABETIC) ||
           (m & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0 ||
           u_hasBinaryProperty(UChar32(c), UCHAR_JOIN_CONTROL);
}

bool is_chinese_char(char32_t c) {
    // BERT's definition (the CJK Unified Ideographs blocks and their extensions), which is a
    // rule of the model rather than a Unicode property.
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
           (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
           (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

}  // namespace attn::tok::detail
