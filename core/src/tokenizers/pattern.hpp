// AttnScope core — the patterns tokenizers split and replace with: literal text, a PCRE2 regex
// (UTF + UCP, so \p{L}, \s and look-aheads mean what Oniguruma does), or one character class.
// GPL-3.0-or-later.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "json_fields.hpp"

struct pcre2_real_code_8;

namespace attn::tok::detail {

/// A part of a string: [begin, end) and whether the pattern matched it.
struct Span {
    std::size_t begin, end;
    bool match;
};

/// How a split treats what the pattern matched (Hugging Face's SplitDelimiterBehavior).
enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

class Pattern {
  public:
    static Pattern literal(std::string text);
    /// Throws FormatError at W when REGEX does not compile.
    static Pattern regex(const std::string& regex, const Where& w);
    static Pattern predicate(bool (*pred)(char32_t));
    /// {"String": s} or {"Regex": r}, as Split and Replace write it.
    static Pattern from_json(const Json& v, const Where& w);

    /// The spans of S, matched and not, in order, covering all of S (Hugging Face's
    /// find_matches: each character of a predicate is its own match).
    std::vector<Span> spans(std::string_view s) const;

  private:
    enum class Kind { Literal, Regex, Predicate } kind_ = Kind::Literal;
    std::string text_;
    std::shared_ptr<pcre2_real_code_8> code_;
    std::string where_;  // the regex's place in the file, for the error of a match that fails
    bool (*pred_)(char32_t) = nullptr;
};

/// "Removed", "Isolated"…; FormatError at W otherwise.
Behavior behavior_from_json(const Json& v, const Where& w);
/// The [begin, end) pieces of a split of SPANS by BEHAVIOR (match flags flipped when INVERT).
std::vector<std::pair<std::size_t, std::size_t>> split_spans(std::vector<Span> spans,
                                                             Behavior behavior, bool invert);

}  // namespace attn::tok::detail
