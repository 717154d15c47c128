// AttnScope core — sub-word tokens merged into words (WordPiece ##, GPT-2 Ġ, SentencePiece ▁).
// GPL-3.0-or-later.
#pragma once

#include <string>
#include <vector>

#include "attn/util/types.hpp"

namespace attn {

/// The rule word_groups and merge_words follow, for tooltips, the math panel and --help.
inline constexpr const char* kWordMergeRule =
    "Sub-word pieces merged into words: a WordPiece \"##\" piece continues the word before it; "
    "with GPT-2/RoBERTa \"\u0120\" (or a decoded leading space) or SentencePiece \"\u2581\" "
    "marking word starts, a piece without the mark continues the word before it. Special tokens "
    "([CLS], <s>, ...) are words of their own. Keys are summed over a word's pieces, queries "
    "averaged, so every row still sums to 1.";

/// Sub-word tokens grouped into words.
struct WordGroups {
    std::vector<std::string> words;  ///< one label per word, markers stripped
    std::vector<Index> group_of;     ///< per token, its word
    /// Number of words.
    Index size() const { return static_cast<Index>(words.size()); }
    /// True when some word holds more than one token.
    bool merges() const { return size() < static_cast<Index>(group_of.size()); }
};

/// Groups sub-word tokens into words: WordPiece "##x" continues the previous word; with GPT-2 /
/// RoBERTa "Ġ" (or a leading space, as decoded GPT-2 tokens show it) or SentencePiece "▁",
/// a token without the marker continues the previous word. Special tokens ([CLS], <s>, …)
/// are words of their own. Without any marker every token is a word.
WordGroups word_groups(const std::vector<std::string>& tokens);

/// Weights between words: a word's keys are summed, its queries averaged (rows still sum to 1).
Matrix merge_words(const Matrix& weights, const WordGroups& queries, const WordGroups& keys);

}  // namespace attn
