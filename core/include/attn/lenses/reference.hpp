// AttnScope core — exact dense attention in double precision, the reference of the
// "efficient" lens. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/util/types.hpp"

namespace attn::lenses {

/// softmax(Q Kᵀ · c) V with c = 1/√d_k when scale is true; mask (nq × nk, true = visible) may be
/// null. A row with no visible key gets a zero output and is flagged in empty_rows (if given).
MatrixD exact_attention(const MatrixD& Q, const MatrixD& K, const MatrixD& V,
                        const BoolMatrix* mask = nullptr, bool scale = true,
                        std::vector<std::uint8_t>* empty_rows = nullptr);

/// The weights of exact_attention (nq × nk, rows sum to 1 or are all 0).
MatrixD exact_weights(const MatrixD& Q, const MatrixD& K, const BoolMatrix* mask = nullptr,
                      bool scale = true);

}  // namespace attn::lenses
