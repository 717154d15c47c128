// AttnScope core — IEEE 754 half and bfloat16 to float, for .npy and safetensors. GPL-3.0-or-later.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace attn::detail {

/// IEEE 754 binary16 → float, exact for normals, subnormals, ±0, ±inf and NaN.
inline float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = (h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1F;
    const std::uint32_t mant = h & 0x3FF;
    std::uint32_t bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {  // subnormal: value = mant · 2^-24, exactly representable as float
            const float v = std::ldexp(static_cast<float>(mant), -24);
            return sign ? -v : v;
        }
    } else if (exp == 31) {
        bits = sign | 0x7F800000u | (mant << 13);
    } else {
        bits = sign | ((exp + 112) << 23) | (mant << 13);
    }
    return std::bit_cast<float>(bits);
}

/// bfloat16 → float: the upper half of a float's bits.
inline float bf16_to_float(std::uint16_t h) {
    return std::bit_cast<float>(std::uint32_t(h) << 16);
}

}  // namespace attn::detail
