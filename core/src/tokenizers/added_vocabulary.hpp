// AttnScope core — a tokenizer.json's added tokens, found in text before anything else runs.
// GPL-3.0-or-later.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "json_fields.hpp"

namespace attn::tok::detail {

struct AddedToken {
    std::string content;
    std::int32_t id = 0;
    bool single_word = false, lstrip = false, rstrip = false, normalized = true, special = false;
};

/// A part of text: either an added token's id or text for the pipeline (id -1).
struct Segment {
    std::size_t begin, end;
    std::int32_t id;
};

/// Finds added tokens leftmost-longest (as Aho-Corasick does in the tokenizers library), with
/// their single_word, lstrip and rstrip rules.
class AddedMatcher {
  public:
    /// PATTERNS[i] is what token TOKENS[i] looks like in the text it is matched in.
    void build(const std::vector<const AddedToken*>& tokens,
               const std::vector<std::string>& patterns);
    /// The segments of S, covering all of it.
    std::vector<Segment> split(std::string_view s) const;
    bool empty() const { return tokens_.empty(); }

  private:
    /// The longest pattern at S[AT], or -1; its end in *END.
    int longest_at(std::string_view s, std::size_t at, std::size_t* end) const;

    std::vector<const AddedToken*> tokens_;
    std::unordered_map<std::uint64_t, std::int32_t> edges_;  // node << 8 | byte → child node
    std::vector<int> terminal_{-1};                          // node → token index or -1
    bool first_byte_[256] = {};
};

}  // namespace attn::tok::detail
