// AttnScope core — tiled, online-softmax attention (FlashAttention-style), exact.
// GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/util/types.hpp"

namespace attn::lenses {

/// Tile sizes and the width of a stored value (for the memory count).
struct TiledConfig {
    Index block_q = 16;         ///< queries per tile (B_r)
    Index block_k = 16;         ///< keys per tile (B_c)
    Index bytes_per_value = 4;  ///< 4 = fp32, 2 = fp16
};

/// Output of the tiled computation and the working memory it needed.
struct TiledResult {
    MatrixD output;                        ///< nq × d_v, equal to exact_attention
    std::vector<std::uint8_t> empty_rows;  ///< 1 where a query saw no key (zero output row)
    std::uint64_t peak_bytes = 0;          ///< tiled_peak_bytes of the config
};

/// Exact attention computed one B_r × B_c tile of scores at a time, keeping per query the
/// running max m, running sum ℓ and an unnormalised accumulator (online softmax); mask may be null.
TiledResult tiled_attention(const MatrixD& Q, const MatrixD& K, const MatrixD& V,
                            const BoolMatrix* mask, bool scale, const TiledConfig& config);

/// Working memory of dense attention beyond its inputs and output: the nq × nk score matrix
/// (softmax done in place): nq · nk · bytes.
std::uint64_t dense_peak_bytes(Index nq, Index nk, Index bytes_per_value);

/// Working memory of the tiled way: one B_r × B_c tile plus, per query of the block, m, ℓ and
/// a d_v accumulator: (B_r·B_c + B_r·(2 + d_v)) · bytes — independent of n.
std::uint64_t tiled_peak_bytes(const TiledConfig& config, Index d_v);

}  // namespace attn::lenses
