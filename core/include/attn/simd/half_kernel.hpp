// AttnScope core — run-time dispatched kernels of half-precision weights: widening BF16 and F16
// to float, and the BF16 dot product of one token's products. GPL-3.0-or-later.
#pragma once

#include <cstdint>

#include "attn/util/types.hpp"

namespace attn::simd {

/// out[i] = the float of bfloat16 in[i] (exact: its upper 16 bits), for the active instruction
/// set (active_isa, the softmax kernels' choice).
void widen_bf16(const std::uint16_t* in, Index n, float* out);
/// out[i] = the float of IEEE binary16 in[i] (exact for normals, subnormals, ±0, ±∞ and NaN).
void widen_f16(const std::uint16_t* in, Index n, float* out);
/// Σ w[i]·x[i] for n BF16 weights, in 16 running sums (one 512-bit register, two 256-bit ones or
/// four 128-bit ones: the same sums in the same order on every instruction set, FMA aside).
float dot_bf16(const std::uint16_t* w, const float* x, Index n);

}  // namespace attn::simd
