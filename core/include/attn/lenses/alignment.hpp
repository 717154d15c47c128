// AttnScope core — the "alignment" lens: cross-attention between two sentences.
// GPL-3.0-or-later.
#pragma once

#include <string>
#include <vector>

#include "attn/scene/scene.hpp"
#include "attn/util/types.hpp"

namespace attn::lenses {

/// The alignment matrix of a target sentence (queries) over a source sentence (keys).
struct Alignment {
    std::vector<std::string> source, target;
    Matrix weights;             ///< target × source, rows sum to 1
    std::vector<Index> argmax;  ///< per target token, its most attended source token
    ScoreKind kind = ScoreKind::Dot;
};

/// The head argument that asks for the largest weight of any head in each cell (−1: the mean).
inline constexpr Index kMaxOfHeads = -2;

/// Cross-attention of `target` over `source` with the scene's model settings (d_model, heads,
/// seed, positions, scaling, temperature) and the given score; no mask, explicit embeddings
/// and loaded data dropped. head ≥ 0 picks a head; −1 averages the heads' weights; kMaxOfHeads
/// takes their maximum.
Alignment cross_alignment(const SceneSpec& base, const std::string& source,
                          const std::string& target, ScoreKind kind, Index head = -1);

/// The component of spec's loaded data that is cross-attention: the one named "Cross" (any
/// case), else the first whose query and key tokens differ; −1 when there is none.
Index cross_component(const SceneSpec& spec);

/// The alignment a loaded cross-attention component shows at spec's layer (clamped to the
/// component's layers), with the scene's controls; head ≥ 0 picks a head, −1 averages,
/// kMaxOfHeads takes the heads' maximum.
Alignment loaded_alignment(const SceneSpec& spec, Index component, Index head = -1);

}  // namespace attn::lenses
