// AttnScope core — the Unicode operations tokenizers need, from ICU (no tables of our own).
// GPL-3.0-or-later.
#pragma once

#include <string>
#include <string_view>

namespace attn::tok::detail {

enum class NormForm { NFC, NFD, NFKC, NFKD };

/// S (valid UTF-8) in normalization form FORM.
std::string normalize(std::string_view s, NormForm form);
/// S with every character lowercased on its own (full mappings, no context: as Rust's
/// char::to_lowercase, which the tokenizers library uses).
std::string lowercase(std::string_view s);

/// Decodes the code point at S[I] (valid UTF-8) and advances I.
char32_t next_cp(std::string_view s, std::size_t& i);
/// Appends CP as UTF-8.
void put_cp(std::string& out, char32_t cp);

bool is_white_space(char32_t c);      ///< Unicode White_Space (Rust's char::is_whitespace)
bool is_punctuation(char32_t c);      ///< ASCII punctuation or a P* category
bool is_numeric(char32_t c);          ///< N* categories (Rust's char::is_numeric)
bool is_other(char32_t c);            ///< C* categories
bool is_mark_nonspacing(char32_t c);  ///< Mn
bool is_mark(char32_t c);             ///< Mn, Mc, Me
bool is_word_char(char32_t c);        ///< Rust regex's \w: Alphabetic, M, Nd, Pc, Join_Control
bool is_chinese_char(char32_t c);     ///< the CJK ideograph blocks BERT surrounds with spaces

}  // namespace attn::tok::detail
