// AttnScope core — the run-time dispatched dot kernel of the streamed pass. GPL-3.0-or-later.
#pragma once

#include "attn/util/types.hpp"

namespace attn::simd {

/// Keys per packed block for the kernel of the active instruction set: 16 (AVX-512F), 8 (AVX2
/// with FMA) or 4 (the x86-64 baseline).
Index dot_lanes();

/// What dot_rows computes for a query q and a key k.
enum class Pair {
    Dot,              ///< Σ_d q_d · k_d
    SquaredDistance,  ///< Σ_d (k_d − q_d)², each term squared before the sum (no cancellation)
};

/// Scaled scores c · Σ_d q(r, d) · k(j, d) of `rows` (1 or 8) queries q (rows × width, row-major)
/// against nk keys packed in blocks of `lanes` keys (block b at packed + b · stride: for each of
/// the width dimensions its `lanes` values, the last block zero-padded), into out (rows × nk,
/// row-major), and each row's maximum into row_max. Fused multiply-adds in d order where the
/// instruction set has them (the order of OpenBLAS's kernel), then one rounded multiplication by
/// c. `lanes` is what dot_lanes() said when the keys were packed. With Pair::SquaredDistance, c
/// times the squared distances Σ_d (k_d − q_d)² instead (the RBF score's).
void dot_rows(int rows, Index lanes, const float* q, Index width, const float* packed, Index stride,
              Index nk, float c, float* out, float* row_max, Pair pair = Pair::Dot);

}  // namespace attn::simd
