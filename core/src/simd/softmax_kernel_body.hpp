// AttnScope core — the body of the softmax kernels, included once per instruction set by
// softmax_kernel.cpp inside a `#pragma GCC target` region, in namespace ATTN_SIMD_NS. No include
// guard on purpose. GPL-3.0-or-later.
//
// Written in GCC vector extensions of ATTN_SIMD_W floats, the register width of the instruction set
// (wider vectors than the target has are lowered badly). Sums run over 16 double lanes on every
// ISA and nothing is contracted into a fused multiply-add (the file is compiled with
// -ffp-contract=off), so every ISA computes bit-identical results.

namespace attn::simd::ATTN_SIMD_NS {
namespace {

constexpr Index kWidth = ATTN_SIMD_W;
using FV = float __attribute__((vector_size(kWidth * 4)));
using IV = std::int32_t __attribute__((vector_size(kWidth * 4)));
using HV = float __attribute__((vector_size(kWidth * 2)));   // half a register of floats …
using DV = double __attribute__((vector_size(kWidth * 4)));  // … widened to doubles
constexpr Index kLanes = 16;                                 // the double accumulators of a sum
static_assert(kLanes % kWidth == 0);
constexpr Index kHalf = kWidth / 2, kSums = kLanes / kHalf;

#include "vector_memory_body.hpp"  // NOLINT(build/include)

/// p · 2^n for n an integer in [−150, 128] (ni its int32), rounded once also when the result is
/// subnormal: AVX-512's vscalefps does exactly that; elsewhere, two normal powers of two (the
/// first product is exact).
template <class F, class I>
[[gnu::always_inline]] inline F times_pow2(F p, F n, I ni) {
#if ATTN_SIMD_W == 16
    if constexpr (std::is_same_v<F, FV>) return _mm512_mask_scalef_ps(p, 0xffff, p, n);
#endif
    (void)n;
    const I n1 = ni >> 1, n2 = ni - n1;
    return (p * __builtin_bit_cast(F, (n1 + 127) << 23)) * __builtin_bit_cast(F, (n2 + 127) << 23);
}

/// exp for a float or a block (I its integer twin), Cephes' expf: x = n·ln 2 + r with |r| ≤ ln 2 /
/// 2 (Cody–Waite, two constants), exp(r) = 1 + r + r²·p(r), times 2^n. Below −104 (−∞
/// included) x is taken as −104, whose exp rounds to +0; above 89, as 89, whose is +∞; NaN stays.
template <class F, class I>
[[gnu::always_inline]] inline F exp_t(F x) {
    const F lo = F{} - 104.f, hi = F{} + 89.f;
    // The ternaries keep NaN (comparisons with it are false).
    const F xc = x < lo ? lo : (x > hi ? hi : x);
    const F magic = F{} + 12582912.f;  // 1.5 · 2^23: adding it rounds to an integer
    const F t = xc * 1.44269504088896341f + magic;
    const F n = t - magic;
    const I ni = __builtin_bit_cast(I, t) - __builtin_bit_cast(std::int32_t, 12582912.f);
    const F r = (xc - n * 0.693359375f) - n * -2.12194440e-4f;
    const F z = r * r;
    F p = r * 1.9875691500e-4f + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = (p * z + r) + 1.f;
    return times_pow2<F, I>(p, n, ni);
}

[[gnu::always_inline]] inline FV expv(FV x) {
    return exp_t<FV, IV>(x);
}
[[gnu::always_inline]] inline float exp1(float x) {
    return exp_t<float, std::int32_t>(x);
}

// The two halves of a register (the shuffle's lane list is spelled per width).
#if ATTN_SIMD_W == 16
#define ATTN_SIMD_LOW 0, 1, 2, 3, 4, 5, 6, 7
#define ATTN_SIMD_HIGH 8, 9, 10, 11, 12, 13, 14, 15
#elif ATTN_SIMD_W == 8
#define ATTN_SIMD_LOW 0, 1, 2, 3
#define ATTN_SIMD_HIGH 4, 5, 6, 7
#else
#define ATTN_SIMD_LOW 0, 1
#define ATTN_SIMD_HIGH 2, 3
#endif
[[gnu::always_inline]] inline HV low_half(FV v) {
    return __builtin_shufflevector(v, v, ATTN_SIMD_LOW);
}
[[gnu::always_inline]] inline HV high_half(FV v) {
    return __builtin_shufflevector(v, v, ATTN_SIMD_HIGH);
}
#undef ATTN_SIMD_LOW
#undef ATTN_SIMD_HIGH

float row_max_impl(const float* x, Index n) {
    constexpr float ninf = -std::numeric_limits<float>::infinity();
    FV m = FV{} + ninf;
    Index j = 0;
    for (; j + kWidth <= n; j += kWidth) {
        const FV v = load(x + j);
        m = v > m ? v : m;
    }
    float top = ninf;
    for (Index l = 0; l < kWidth; ++l)
        top = m[l] > top ? m[l] : top;
    for (; j < n; ++j)
        top = x[j] > top ? x[j] : top;
    return top;
}

double exp_sum_impl(const float* x, float* y, Index n, float max) {
    // Lane l of the 16 is acc[l / kHalf][l % kHalf]: each lane adds every 16th value in turn.
    DV acc[kSums] = {};
    Index j = 0;
    for (; j + kLanes <= n; j += kLanes) {
        for (Index v = 0; v < kLanes / kWidth; ++v) {
            const FV e = expv(load(x + j + v * kWidth) - max);
            store(y + j + v * kWidth, e);
            acc[2 * v] += __builtin_convertvector(low_half(e), DV);
            acc[2 * v + 1] += __builtin_convertvector(high_half(e), DV);
        }
    }
    // The tail first, then the lanes: the order softmax.cpp summed in before these kernels.
    double s = 0;
    for (; j < n; ++j) {
        y[j] = exp1(x[j] - max);
        s += static_cast<double>(y[j]);
    }
    for (Index l = 0; l < kLanes; ++l)
        s += acc[l / kHalf][l % kHalf];
    return s;
}

void exp_scale_impl(const float* x, float* y, Index n, float max, float scale) {
    Index j = 0;
    for (; j + kWidth <= n; j += kWidth)
        store(y + j, expv(load(x + j) - max) * scale);
    for (; j < n; ++j)
        y[j] = exp1(x[j] - max) * scale;
}

void scale_impl(float* y, Index n, float f) {
    Index j = 0;
    for (; j + kWidth <= n; j += kWidth)
        store(y + j, load(y + j) * f);
    for (; j < n; ++j)
        y[j] *= f;
}

bool all_finite_impl(const float* x, Index n) {
    // x · 0 is 0 for finite x and NaN for ±∞ and NaN, and NaN survives the sums.
    FV acc{};
    Index j = 0;
    for (; j + kWidth <= n; j += kWidth)
        acc += load(x + j) * 0.f;
    float s = 0;
    for (; j < n; ++j)
        s += x[j] * 0.f;
    for (Index l = 0; l < kWidth; ++l)
        s += acc[l];
    return s == 0.f;
}

void exp_impl(const float* x, float* y, Index n) {
    Index j = 0;
    for (; j + kWidth <= n; j += kWidth)
        store(y + j, expv(load(x + j)));
    for (; j < n; ++j)
        y[j] = exp1(x[j]);
}

#include "row_stats_body.hpp"  // NOLINT(build/include)

}  // namespace

const Kernels kernels{row_max_impl, exp_sum_impl,    exp_scale_impl,    scale_impl,
                      exp_impl,     all_finite_impl, softmax_stats_impl};

}  // namespace attn::simd::ATTN_SIMD_NS
