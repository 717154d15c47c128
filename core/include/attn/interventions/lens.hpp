// AttnScope core — the logit lens: the residual stream read through the final norm and the
// output head after the embedding and after every layer. GPL-3.0-or-later.
// The method and its formula are in docs/interventions.md.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/models/model.hpp"
#include "attn/models/run.hpp"

namespace attn::interv {

/// The logits of RUN's residual stream at POSITION (default: run.logits_position) entering
/// each layer and leaving the last, through MODEL's final norm and output head: [L + 1, vocab].
/// Row L is run.logits. Throws ArgumentError for a position outside the run.
Matrix lens_logits(const model::Model& model, const model::Run& run,
                   std::optional<Index> position = {});

/// Number of tokens kept per cell of the lens table.
inline constexpr int kLensTop = 5;

/// One cell of the lens table: the likeliest tokens at one layer and position, likeliest first.
struct LensCell {
    std::array<std::int32_t, kLensTop> ids{};
    std::array<float, kLensTop> probabilities{};  ///< softmax of that row's logits
};

/// The logit lens at every position: cells[layer * positions + position], layers + 1 rows.
struct LensTable {
    Index layers = 0;  ///< rows: the model's layers + 1 (after the embedding, after each layer)
    Index positions = 0;
    std::vector<LensCell> cells;
    /// The cell of ROW (0: after the embedding) and POSITION; throws ArgumentError outside.
    const LensCell& at(Index row, Index position) const;
};

/// The top kLensTop tokens (softmax probabilities) of LOGITS, likeliest first; ties by id.
LensCell top_tokens(const Vector& logits);

/// The lens table of RUN: every position × (layers + 1), top kLensTop per cell. PROGRESS is
/// told after each position and may cancel (attn::Cancelled).
LensTable lens_table(const model::Model& model, const model::Run& run,
                     Progress* progress = nullptr);

}  // namespace attn::interv
