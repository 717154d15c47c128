// AttnScope core — matrix products straight from BF16 weights (AVX-512F): a Linear's forward
// and its input gradient without widening the weights into a float copy or packing them.
// GPL-3.0-or-later.
#pragma once

#include <cstdint>

#include "attn/util/types.hpp"

namespace attn::simd {

/// True when the products below run here: the active instruction set (active_isa) is AVX-512F.
bool bf16_products();

/// Floats of scratch bf16_mul_t needs (one thread's; the caller keeps it between products).
Index bf16_mul_t_scratch();

/// OUT[i, j] = Σ_k X[i, k] · W[j, k] for i < M, j < N, k < K (a Linear's X · Wᵀ), rows of X, W
/// and OUT LDX, LDW and LDO apart; K a multiple of 32 and bf16_products() true. SCRATCH holds
/// bf16_mul_t_scratch() floats. Each output sums in an order fixed by K alone.
void bf16_mul_t(const float* x, Index ldx, Index m, Index k, const std::uint16_t* w, Index ldw,
                Index n, float* out, Index ldo, float* scratch);

/// OUT[i, c] = Σ_r DY[i, r] · W[r, c] for i < M, r < R, c < NC (a Linear's input gradient
/// DY · W over NC of W's columns), rows of DY, W and OUT LDY, LDW and LDO apart; NC a multiple
/// of 32 and bf16_products() true. Each output sums in an order fixed by R alone.
void bf16_mul(const float* dy, Index ldy, Index m, Index r, const std::uint16_t* w, Index ldw,
              Index nc, float* out, Index ldo);

}  // namespace attn::simd
