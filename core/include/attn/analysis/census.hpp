// AttnScope core — head census: how much each head behaves like a known pattern.
// GPL-3.0-or-later. The definitions are in docs/census.md.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "attn/scene/scene.hpp"
#include "attn/util/progress.hpp"
#include "attn/util/types.hpp"

namespace attn {

/// The patterns the census scores, in the order of its output columns; Mixed labels a head
/// with no clear pattern.
enum class HeadPattern { PreviousToken, Self, FirstToken, Local, Broad, Induction, Mixed };

/// Number of scored patterns (every HeadPattern but Mixed).
inline constexpr int kPatternCount = 6;

/// The scored patterns from most to least specific: a tie goes to the earlier one
/// (previous-token and self are special cases of local; everything is more specific than broad).
inline constexpr std::array<HeadPattern, kPatternCount> kSpecificity = {
    HeadPattern::PreviousToken, HeadPattern::Self,  HeadPattern::FirstToken,
    HeadPattern::Induction,     HeadPattern::Local, HeadPattern::Broad};

/// Half-width of the `local` window: keys j with |i − j| ≤ kLocalWindow.
inline constexpr Index kLocalWindow = 2;
/// A label needs at least this score; below it the head is `mixed`.
inline constexpr double kClearScore = 0.5;
/// Scores within this margin of the best count as a tie, won by the more specific pattern.
inline constexpr double kTieMargin = 0.1;

/// Stable name of a pattern: "previous-token", "self", …, "mixed".
const char* pattern_name(HeadPattern pattern);
/// Column name of a pattern's score: the name with '_' for '-' ("previous_token").
std::string pattern_column(HeadPattern pattern);

/// The census of one head: a score in [0, 1] per pattern (NaN when undefined: induction on a
/// sequence without a repeated token) and the label.
struct HeadCensus {
    Index layer = 0, head = 0;
    std::array<double, kPatternCount> scores{};  ///< indexed by HeadPattern
    HeadPattern label = HeadPattern::Mixed;
    /// Score of one pattern (NaN for Mixed).
    double score(HeadPattern p) const;
};

/// The census of every layer × head of a scene.
struct Census {
    Index layers = 0, heads = 0;
    std::vector<HeadCensus> entries;  ///< row-major by layer
    /// Entry of (layer, head); throws ArgumentError out of range.
    const HeadCensus& at(Index layer, Index head) const;
};

/// Scores one head's weights A (n × n self-attention over `tokens`). visible(i, j) says which
/// keys query i could attend to (empty: every key); it normalises the entropy of `broad` and
/// decides which queries count (those with two or more visible keys).
HeadCensus census_head(const Matrix& A, const std::vector<std::string>& tokens,
                       const BoolMatrix& visible = BoolMatrix());

/// The label of a set of scores: the highest score of at least kClearScore, ties within
/// kTieMargin going to the most specific pattern; Mixed when none is clear.
HeadPattern census_label(const std::array<double, kPatternCount>& scores);

/// True when every weight strictly above the diagonal is exactly zero (a causal head).
bool is_causal_weights(const Matrix& A);

/// The census of one computed layer. Throws ArgumentError for anything but square
/// self-attention (same tokens on both sides).
std::vector<HeadCensus> census_layer(const SceneResult& result);

/// The census of every layer of a scene (each computed as compute_scene would, controls
/// applied). Throws ArgumentError for cross-attention; attn::Cancelled through progress.
Census census(const SceneSpec& spec, Progress* progress = nullptr);

/// Throws ArgumentError naming the sizes unless result is square self-attention.
void require_self_attention(const SceneResult& result, const char* what);

}  // namespace attn
