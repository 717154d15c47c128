// AttnScope core — matrix products straight from BF16 weights (AVX-512F): a Linear's forward
// and its input gradient without widening the weights into a float copy or packing them.
// GPL-3.0-or-later.
#pragma once

#include <cstdint>

#include "attn/util/types.hpp"

namespace attn::simd {

/// True when the products below run here: the active instruction set (active_isa) is AVX-512F.
bool bf16_products();

/// X (M × K, rows LDX apart) into OUT (M × K, rows K apart) in the order bf16_mul_t reads it:
/// each 32 values as their 16 evens then their 16 odds. K a multiple of 32, bf16_products().
void bf16_reorder(const float* x, Index ldx, Index m, Index k, float* out);

/// OUT[i, j] = Σ_k X[i, k] · W[j, k] for i < M, j < N, k < K (a Linear's X · Wᵀ), X given as
/// bf16_reorder wrote it (XR, rows K apart; once per product, for every thread's rows of W), rows
/// of W and OUT LDW and LDO apart; K a multiple of 32 and bf16_products() true. Each output sums
/// in an order fixed by K alone.
void bf16_mul_t(const float* xr, Index m, Index k, const std::uint16_t* w, Index ldw, Index n,
                float* out, Index ldo);

/// OUT[i, c] = Σ_r DY[i, r] · W[r, c] for i < M, r < R, c < NC (a Linear's input gradient
/// DY · W over NC of W's columns), rows of DY, W and OUT LDY, LDW and LDO apart; NC a multiple
/// of 32 and bf16_products() true. Each output sums in an order fixed by R alone.
void bf16_mul(const float* dy, Index ldy, Index m, Index r, const std::uint16_t* w, Index ldw,
              Index nc, float* out, Index ldo);

}  // namespace attn::simd
