// AttnScope core — the block formats of GGUF tensors, decoded as ggml's dequantize_row_* define
// them (ggml-quants.c). GPL-3.0-or-later.
#include <cstring>
#include <string>

#include "../util/half.hpp"
#include "attn/util/error.hpp"
#include "attn/weights/gguf.hpp"

namespace attn::model {
namespace {

constexpr std::size_t kQK = 32;     // values per block of Q4_0 and Q8_0
constexpr std::size_t kQK_K = 256;  // values per super-block of the K types

std::uint16_t u16_at(const std::byte* p) {
    std::uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}

float f16_at(const std::byte* p) {
    return detail::half_to_float(u16_at(p));
}

std::uint8_t u8(const std::byte* p, std::size_t i) {
    return std::to_integer<std::uint8_t>(p[i]);
}

/// Q4_0: d (f16), 16 bytes of nibbles; low nibbles are values 0…15, high ones 16…31, minus 8.
void q4_0(const std::byte* b, float* y) {
    const float d = f16_at(b);
    for (std::size_t j = 0; j < kQK / 2; ++j) {
        const std::uint8_t q = u8(b + 2, j);
        y[j] = float(int(q & 0x0F) - 8) * d;
        y[j + kQK / 2] = float(int(q >> 4) - 8) * d;
    }
}

/// Q4_1: d and m (f16), 16 bytes of nibbles as Q4_0's: nibble · d + m.
void q4_1(const std::byte* b, float* y) {
    const float d = f16_at(b), m = f16_at(b + 2);
    for (std::size_t j = 0; j < kQK / 2; ++j) {
        const std::uint8_t q = u8(b + 4, j);
        y[j] = float(q & 0x0F) * d + m;
        y[j + kQK / 2] = float(q >> 4) * d + m;
    }
}

/// Q5_0 / Q5_1: d (and m for Q5_1) (f16), 4 bytes of fifth bits (bit j for value j, bit j + 16
/// for value j + 16, a little-endian word), 16 bytes of nibbles; Q5_0's values are centred on 16.
void q5(const std::byte* b, float* y, bool with_min) {
    const float d = f16_at(b), m = with_min ? f16_at(b + 2) : 0.f;
    const std::byte* qhp = b + (with_min ? 4 : 2);
    std::uint32_t qh;
    std::memcpy(&qh, qhp, 4);
    const std::byte* qs = qhp + 4;
    for (std::size_t j = 0; j < kQK / 2; ++j) {
        const std::uint8_t xh0 = std::uint8_t(((qh >> j) << 4) & 0x10);
        const std::uint8_t xh1 = std::uint8_t((qh >> (j + 12)) & 0x10);
        const int x0 = int((u8(qs, j) & 0x0F) | xh0), x1 = int((u8(qs, j) >> 4) | xh1);
        if (with_min) {
            y[j] = float(x0) * d + m;
            y[j + kQK / 2] = float(x1) * d + m;
        } else {
            y[j] = float(x0 - 16) * d;
            y[j + kQK / 2] = float(x1 - 16) * d;
        }
    }
}

/// Q8_0: d (f16), 32 signed bytes.
void q8_0(const std::byte* b, float* y) {
    const float d = f16_at(b);
    for (std::size_t j = 0; j < kQK; ++j)
        y[j] = float(std::int8_t(u8(b + 2, j))) * d;
}

/// The 6-bit scale and min of sub-block J from the 12 packed bytes of a Q4_K / Q5_K block
/// (ggml's get_scale_min_k4).
void scale_min_k4(int j, const std::byte* q, std::uint8_t& sc, std::uint8_t& m) {
    if (j < 4) {
        sc = u8(q, std::size_t(j)) & 63;
        m = u8(q, std::size_t(j + 4)) & 63;
    } else {
        sc = std::uint8_t((u8(q, std::size_t(j + 4)) & 0x0F) |
                          ((u8(q, std::size_t(j - 4)) >> 6) << 4));
        m = std::uint8_t((u8(q, std::size_t(j + 4)) >> 4) | ((u8(q, std::size_t(j)) >> 6) << 4));
    }
}

/// Q4_K and, with kFifthBit, Q5_K: d, dmin (f16), 12 bytes of scales and mins, Q5_K's 32 bytes
/// of high bits, 128 bytes of nibbles; eight sub-blocks of 32 values, each d·scale·q − dmin·min
/// (Q5_K: q's fifth bit from the high bits, bit pair 2k, 2k + 1 for sub-blocks 2k, 2k + 1).
template <bool kFifthBit>
void k_quant(const std::byte* b, float* y) {
    const float d = f16_at(b), dmin = f16_at(b + 2);
    const std::byte* scales = b + 4;
    const std::byte* qh = b + 16;
    const std::byte* q = b + (kFifthBit ? 48 : 16);
    // The fifth bit of value L of the sub-block whose bit is U.
    const auto high = [&](std::size_t l, std::uint8_t u) {
        return kFifthBit && (u8(qh, l) & u) ? 16 : 0;
    };
    int is = 0;
    std::uint8_t u1 = 1, u2 = 2;
    for (std::size_t j = 0; j < kQK_K; j += 64) {
        std::uint8_t sc, m;
        scale_min_k4(is, scales, sc, m);
        const float d1 = d * sc, m1 = dmin * m;
        scale_min_k4(is + 1, scales, sc, m);
        const float d2 = d * sc, m2 = dmin * m;
        for (std::size_t l = 0; l < 32; ++l)
            *y++ = d1 * float((u8(q, l) & 0x0F) + high(l, u1)) - m1;
        for (std::size_t l = 0; l < 32; ++l)
            *y++ = d2 * float((u8(q, l) >> 4) + high(l, u2)) - m2;
        q += 32;
        is += 2;
        u1 = std::uint8_t(u1 << 2);
        u2 = std::uint8_t(u2 << 2);
    }
}

/// Q6_K: 128 bytes of low nibbles, 64 of high bit pairs, 16 signed scales, d (f16); values
/// d·scale·(q − 32).
void q6_k(const std::byte* b, float* y) {
    const std::byte* ql = b;
    const std::byte* qh = b + 128;
    const std::byte* sc = b + 192;
    const float d = f16_at(b + 208);
    for (std::size_t n = 0; n < kQK_K; n += 128) {
        for (std::size_t l = 0; l < 32; ++l) {
            const std::size_t is = l / 16;
            const int h = u8(qh, l);
            const int q1 = int((u8(ql, l) & 0x0F) | (((h >> 0) & 3) << 4)) - 32;
            const int q2 = int((u8(ql, l + 32) & 0x0F) | (((h >> 2) & 3) << 4)) - 32;
            const int q3 = int((u8(ql, l) >> 4) | (((h >> 4) & 3) << 4)) - 32;
            const int q4 = int((u8(ql, l + 32) >> 4) | (((h >> 6) & 3) << 4)) - 32;
            const auto s = [&](std::size_t k) { return float(std::int8_t(u8(sc, is + k))); };
            y[l] = d * s(0) * float(q1);
            y[l + 32] = d * s(2) * float(q2);
            y[l + 64] = d * s(4) * float(q3);
            y[l + 96] = d * s(6) * float(q4);
        }
        y += 128;
        ql += 64;
        qh += 32;
        sc += 8;
    }
}

}  // namespace

std::string gguf_type_name(std::uint32_t type) {
    switch (type) {
        case 0:
            return "F32";
        case 1:
            return "F16";
        case 2:
            return "Q4_0";
        case 3:
            return "Q4_1";
        case 6:
            return "Q5_0";
        case 7:
            return "Q5_1";
        case 8:
            return "Q8_0";
        case 9:
            return "Q8_1";
        case 10:
            return "Q2_K";
        case 11:
            return "Q3_K";
        case 12:
            return "Q4_K";
        case 13:
            return "Q5_K";
        case 14:
            return "Q6_K";
        case 15:
            return "Q8_K";
        case 16:
            return "IQ2_XXS";
        case 17:
            return "IQ2_XS";
        case 18:
            return "IQ3_XXS";
        case 19:
            return "IQ1_S";
        case 20:
            return "IQ4_NL";
        case 21:
            return "IQ3_S";
        case 22:
            return "IQ2_S";
        case 23:
            return "IQ4_XS";
        case 24:
            return "I8";
        case 25:
            return "I16";
        case 26:
            return "I32";
        case 27:
            return "I64";
        case 28:
            return "F64";
        case 29:
            return "IQ1_M";
        case 30:
            return "BF16";
        default:
            return "type " + std::to_string(type);
    }
}

std::size_t gguf_block_values(GgufType type) {
    switch (type) {
        case GgufType::F32:
        case GgufType::F16:
        case GgufType::BF16:
            return 1;
        case GgufType::Q4_0:
        case GgufType::Q4_1:
        case GgufType::Q5_0:
        case GgufType::Q5_1:
        case GgufType::Q8_0:
            return kQK;
        case GgufType::Q4_K:
        case GgufType::Q5_K:
        case GgufType::Q6_K:
            return kQK_K;
    }
    return 0;
}

std::size_t gguf_block_bytes(GgufType type) {
    switch (type) {
        case GgufType::F32:
            return 4;
        case GgufType::F16:
        case GgufType::BF16:
            return 2;
        case GgufType::Q4_0:
            return 2 + kQK / 2;
        case GgufType::Q4_1:
            return 4 + kQK / 2;
        case GgufType::Q5_0:
            return 2 + 4 + kQK / 2;
        case GgufType::Q5_1:
            return 4 + 4 + kQK / 2;
        case GgufType::Q8_0:
            return 2 + kQK;
        case GgufType::Q4_K:
            return 2 + 2 + 12 + kQK_K / 2;
        case GgufType::Q5_K:
            return 2 + 2 + 12 + kQK_K / 8 + kQK_K / 2;
        case GgufType::Q6_K:
            return kQK_K / 2 + kQK_K / 4 + kQK_K / 16 + 2;
    }
    return 0;
}

void gguf_dequantize(GgufType type, const std::byte* src, float* dst, std::size_t count) {
    const std::size_t per = gguf_block_values(type), bytes = gguf_block_bytes(type);
    if (per == 0 || count % per != 0)
        throw ArgumentError("gguf_dequantize: " + std::to_string(count) + " values are not whole " +
                            gguf_type_name(std::uint32_t(type)) + " blocks.");
    const std::size_t blocks = count / per;
    for (std::size_t i = 0; i < blocks; ++i, src += bytes, dst += per) {
        switch (type) {
            case GgufType::F32:
                std::memcpy(dst, src, 4);
                break;
            case GgufType::F16:
                *dst = f16_at(src);
                break;
            case GgufType::BF16:
                *dst = detail::bf16_to_float(u16_at(src));
                break;
            case GgufType::Q4_0:
                q4_0(src, dst);
                break;
            case GgufType::Q4_1:
                q4_1(src, dst);
                break;
            case GgufType::Q5_0:
                q5(src, dst, false);
                break;
            case GgufType::Q5_1:
                q5(src, dst, true);
                break;
            case GgufType::Q8_0:
                q8_0(src, dst);
                break;
            case GgufType::Q4_K:
                k_quant<false>(src, dst);
                break;
            case GgufType::Q5_K:
                k_quant<true>(src, dst);
                break;
            case GgufType::Q6_K:
                q6_k(src, dst);
                break;
        }
    }
}

std::int64_t gguf_first_bad_block(GgufType type, const std::byte* src, std::size_t blocks) {
    // The f16 scales of each block: its quants are small integers, so the values are finite
    // exactly when these are (|d · scale · q| stays far below float32's range).
    std::size_t at[2] = {0, 0};
    std::size_t n = 1;
    switch (type) {
        case GgufType::Q4_0:
        case GgufType::Q5_0:
        case GgufType::Q8_0:
            break;
        case GgufType::Q4_1:
        case GgufType::Q5_1:
        case GgufType::Q4_K:
        case GgufType::Q5_K:
            at[1] = 2, n = 2;
            break;
        case GgufType::Q6_K:
            at[0] = kQK_K / 2 + kQK_K / 4 + kQK_K / 16;
            break;
        default:
            return -1;
    }
    const std::size_t bytes = gguf_block_bytes(type);
    for (std::size_t b = 0; b < blocks; ++b)
        for (std::size_t i = 0; i < n; ++i)
            if ((u16_at(src + b * bytes + at[i]) & 0x7c00) == 0x7c00) return std::int64_t(b);
    return -1;
}

}  // namespace attn::model
