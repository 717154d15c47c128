// AttnScope core — products straight from BF16 weights with AVX-512F. A BF16 value is the upper
// half of a float: a 512-bit load of 32 weights gives the 16 even ones as floats by a left shift
// of each 32-bit lane and the 16 odd ones by masking its low half, two instructions and no
// widened copy. The forward (X · Wᵀ) runs along K, where X and W are both contiguous: X's rows
// are reordered once per product into the same evens-then-odds order, and each output is one
// register of 16 partial sums reduced at the end. The input gradient (DY · W) runs along W's
// rows, broadcasting DY's entries; its outputs come out evens-then-odds and are interleaved back
// when stored. Neither packs W, which OpenBLAS does on every call after our own widening: on a
// 64-row product those two passes cost about as much as a third of the arithmetic.
// GPL-3.0-or-later.
#include "attn/simd/bf16_product.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "attn/simd/softmax_kernel.hpp"
#include "target_region.hpp"

#if defined(ATTN_TARGET_REGIONS)
// GCC 12's AVX-512 header writes its "undefined" registers as self-initialised variables, which
// -Wuninitialized reports inside the header for every shuffle: the values are never read.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#define ATTN_BF16_PRODUCTS 1
#endif

namespace attn::simd {

namespace {

/// X rows a forward block reads, and the K they span: 64 · 1024 floats (256 KB) stay in a
/// core's L2 while every W row of the product passes them.
constexpr Index kRowBlock = 64, kDepthBlock = 1024;
/// W rows one input-gradient block reads: 512 rows of 64 columns (64 KB) stay in L2 while every
/// block of DY rows passes them.
constexpr Index kRowsPerPass = 512;

}  // namespace

#ifdef ATTN_BF16_PRODUCTS
ATTN_TARGET_AVX512
namespace avx512_bf16 {
namespace {

inline __m512 evens(__m512i w) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
}
inline __m512 odds(__m512i w) {
    return _mm512_castsi512_ps(_mm512_and_si512(w, _mm512_set1_epi32(int(0xFFFF0000u))));
}

/// The sum of V's 16 lanes (GCC 12's _mm512_reduce_add_ps trips -Wuninitialized in its header).
inline float lane_sum(__m512 v) {
    v = _mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, 0x4E));
    v = _mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, 0xB1));
    v = _mm512_add_ps(v, _mm512_permute_ps(v, 0x4E));
    v = _mm512_add_ps(v, _mm512_permute_ps(v, 0xB1));
    return _mm512_cvtss_f32(v);
}

/// Rows of X (M × K, LDX apart) into OUT (M × K), each 32 values as their 16 evens then odds.
void reorder_rows(const float* x, Index ldx, Index m, Index k, float* out) {
    const __m512i even =
        _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    for (Index i = 0; i < m; ++i)
        for (Index c = 0; c < k; c += 32) {
            const __m512 a = _mm512_loadu_ps(x + i * ldx + c),
                         b = _mm512_loadu_ps(x + i * ldx + c + 16);
            _mm512_storeu_ps(out + i * k + c, _mm512_permutex2var_ps(a, even, b));
            _mm512_storeu_ps(out + i * k + c + 16, _mm512_permutex2var_ps(a, odd, b));
        }
}

/// OUT (MR × NR, LDO apart) = or += the reordered XR (MR rows of K values, LDR apart) times W's
/// NR rows.
template <int MR, int NR>
void forward_tile(const float* xr, Index ldr, Index k, const std::uint16_t* w, Index ldw,
                  float* out, Index ldo, bool add) {
    __m512 acc[MR][NR];
    for (int i = 0; i < MR; ++i)
        for (int j = 0; j < NR; ++j)
            acc[i][j] = _mm512_setzero_ps();
    for (Index c = 0; c < k; c += 32) {
        __m512 xe[MR], xo[MR];
        for (int i = 0; i < MR; ++i) {
            xe[i] = _mm512_loadu_ps(xr + i * ldr + c);
            xo[i] = _mm512_loadu_ps(xr + i * ldr + c + 16);
        }
        for (int j = 0; j < NR; ++j) {
            const __m512i wv = _mm512_loadu_si512(w + j * ldw + c);
            const __m512 we = evens(wv), wo = odds(wv);
            for (int i = 0; i < MR; ++i) {
                acc[i][j] = _mm512_fmadd_ps(xe[i], we, acc[i][j]);
                acc[i][j] = _mm512_fmadd_ps(xo[i], wo, acc[i][j]);
            }
        }
    }
    for (int i = 0; i < MR; ++i)
        for (int j = 0; j < NR; ++j) {
            const float s = lane_sum(acc[i][j]);
            out[i * ldo + j] = add ? out[i * ldo + j] + s : s;
        }
}

using ForwardTile = void (*)(const float*, Index, Index, const std::uint16_t*, Index, float*, Index,
                             bool);
constexpr int kMr = 4, kNr = 5;  // 20 sums, 8 rows of X and 2 of W: 30 of 32 registers

template <int MR, int... NR>
constexpr auto forward_row(std::integer_sequence<int, NR...>) {
    return std::array<ForwardTile, sizeof...(NR)>{&forward_tile<MR, NR + 1>...};
}
const std::array<std::array<ForwardTile, kNr>, kMr> kForwardTiles{
    forward_row<1>(std::make_integer_sequence<int, kNr>{}),
    forward_row<2>(std::make_integer_sequence<int, kNr>{}),
    forward_row<3>(std::make_integer_sequence<int, kNr>{}),
    forward_row<4>(std::make_integer_sequence<int, kNr>{})};

/// OUT (MR × 16·V, LDO apart) = or += DY's MR rows (LDY apart) over W's rows R0 … R1 (LDW apart),
/// V / 2 blocks of 32 columns.
template <int MR, int V>
void gradient_tile(const float* dy, Index ldy, Index r0, Index r1, const std::uint16_t* w,
                   Index ldw, float* out, Index ldo, bool add) {
    __m512 acc[MR][V];
    for (int i = 0; i < MR; ++i)
        for (int v = 0; v < V; ++v)
            acc[i][v] = _mm512_setzero_ps();
    for (Index r = r0; r < r1; ++r) {
        __m512 wv[V];
        for (int b = 0; b < V / 2; ++b) {
            const __m512i raw = _mm512_loadu_si512(w + r * ldw + 32 * b);
            wv[2 * b] = evens(raw);
            wv[2 * b + 1] = odds(raw);
        }
        for (int i = 0; i < MR; ++i) {
            const __m512 d = _mm512_set1_ps(dy[i * ldy + r]);
            for (int v = 0; v < V; ++v)
                acc[i][v] = _mm512_fmadd_ps(d, wv[v], acc[i][v]);
        }
    }
    const __m512i lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    const __m512i hi =
        _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
    for (int i = 0; i < MR; ++i)
        for (int b = 0; b < V / 2; ++b) {
            float* o = out + i * ldo + 32 * b;
            __m512 a = _mm512_permutex2var_ps(acc[i][2 * b], lo, acc[i][2 * b + 1]);
            __m512 c = _mm512_permutex2var_ps(acc[i][2 * b], hi, acc[i][2 * b + 1]);
            if (add) {
                a = _mm512_add_ps(a, _mm512_loadu_ps(o));
                c = _mm512_add_ps(c, _mm512_loadu_ps(o + 16));
            }
            _mm512_storeu_ps(o, a);
            _mm512_storeu_ps(o + 16, c);
        }
}

using GradientTile = void (*)(const float*, Index, Index, Index, const std::uint16_t*, Index,
                              float*, Index, bool);
constexpr int kGradientRows = 6;  // 6 · 4 sums, 4 columns of W and a broadcast: 29 registers
const std::array<std::array<GradientTile, 2>, kGradientRows> kGradientTiles{{
    {&gradient_tile<1, 2>, &gradient_tile<1, 4>},
    {&gradient_tile<2, 2>, &gradient_tile<2, 4>},
    {&gradient_tile<3, 2>, &gradient_tile<3, 4>},
    {&gradient_tile<4, 2>, &gradient_tile<4, 4>},
    {&gradient_tile<5, 2>, &gradient_tile<5, 4>},
    {&gradient_tile<6, 2>, &gradient_tile<6, 4>},
}};

}  // namespace

void reorder(const float* x, Index ldx, Index m, Index k, float* out) {
    reorder_rows(x, ldx, m, k, out);
}

void mul_t(const float* xr, Index m, Index k, const std::uint16_t* w, Index ldw, Index n,
           float* out, Index ldo) {
    for (Index c0 = 0; c0 < k; c0 += kDepthBlock) {
        const Index kc = std::min(kDepthBlock, k - c0);
        for (Index i0 = 0; i0 < m; i0 += kRowBlock) {
            const Index mc = std::min(kRowBlock, m - i0);
            for (Index j = 0; j < n; j += kNr) {
                const Index nr = std::min<Index>(kNr, n - j);
                for (Index i = i0; i < i0 + mc; i += kMr) {
                    const Index mr = std::min<Index>(kMr, i0 + mc - i);
                    kForwardTiles[std::size_t(mr - 1)][std::size_t(nr - 1)](
                        xr + i * k + c0, k, kc, w + j * ldw + c0, ldw, out + i * ldo + j, ldo,
                        c0 > 0);
                }
            }
        }
    }
}

void mul(const float* dy, Index ldy, Index m, Index r, const std::uint16_t* w, Index ldw, Index nc,
         float* out, Index ldo) {
    for (Index c = 0; c < nc; c += 64) {
        const std::size_t wide = nc - c >= 64 ? 1 : 0;
        for (Index r0 = 0; r0 < r; r0 += kRowsPerPass) {
            const Index r1 = std::min(r, r0 + kRowsPerPass);
            for (Index i = 0; i < m; i += kGradientRows) {
                const Index mr = std::min<Index>(kGradientRows, m - i);
                kGradientTiles[std::size_t(mr - 1)][wide](dy + i * ldy, ldy, r0, r1, w + c, ldw,
                                                          out + i * ldo + c, ldo, r0 > 0);
            }
        }
    }
}

}  // namespace avx512_bf16
ATTN_TARGET_END
#endif

bool bf16_products() {
#ifdef ATTN_BF16_PRODUCTS
    return active_isa() == Isa::Avx512;
#else
    return false;
#endif
}

// Without the target regions (not x86-64) bf16_products() is false and these are never called.
void bf16_reorder([[maybe_unused]] const float* x, [[maybe_unused]] Index ldx,
                  [[maybe_unused]] Index m, [[maybe_unused]] Index k, [[maybe_unused]] float* out) {
#ifdef ATTN_BF16_PRODUCTS
    avx512_bf16::reorder(x, ldx, m, k, out);
#endif
}

void bf16_mul_t([[maybe_unused]] const float* xr, [[maybe_unused]] Index m,
                [[maybe_unused]] Index k, [[maybe_unused]] const std::uint16_t* w,
                [[maybe_unused]] Index ldw, [[maybe_unused]] Index n, [[maybe_unused]] float* out,
                [[maybe_unused]] Index ldo) {
#ifdef ATTN_BF16_PRODUCTS
    avx512_bf16::mul_t(xr, m, k, w, ldw, n, out, ldo);
#endif
}

void bf16_mul([[maybe_unused]] const float* dy, [[maybe_unused]] Index ldy,
              [[maybe_unused]] Index m, [[maybe_unused]] Index r,
              [[maybe_unused]] const std::uint16_t* w, [[maybe_unused]] Index ldw,
              [[maybe_unused]] Index nc, [[maybe_unused]] float* out, [[maybe_unused]] Index ldo) {
#ifdef ATTN_BF16_PRODUCTS
    avx512_bf16::mul(dy, ldy, m, r, w, ldw, nc, out, ldo);
#endif
}

}  // namespace attn::simd
