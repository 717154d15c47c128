// AttnScope core — the body of the streamed pass's dot kernel, included once per instruction set
// by dot_kernel.cpp inside a `#pragma GCC target` region, in namespace ATTN_DOT_NS. No include
// guard on purpose. GPL-3.0-or-later.

namespace attn::simd::ATTN_DOT_NS {
namespace {

constexpr Index kWidth = ATTN_DOT_W;
using FV = float __attribute__((vector_size(kWidth * 4)));

#include "vector_memory_body.hpp"  // NOLINT(build/include)

/// a · b + c, fused where the instruction set can (the file is compiled without contraction, so
/// the baseline rounds twice, as Eigen's SSE2 packets did).
[[gnu::always_inline]] inline FV madd(FV a, FV b, FV c) {
#if ATTN_DOT_W == 16
    return _mm512_fmadd_ps(a, b, c);
#elif ATTN_DOT_W == 8
    return _mm256_fmadd_ps(a, b, c);
#else
    return a * b + c;
#endif
}

/// Dist: the squared distance Σ_d (k_d − q_d)², each difference squared before it is summed (so
/// nothing cancels, unlike ‖q‖² + ‖k‖² − 2 q·k); otherwise the dot product.
template <int R, bool Dist>
void dot_rows(const float* q, Index width, const float* packed, Index stride, Index nk, float c,
              float* out, float* row_max) {
    const FV scale = FV{} + c;
    const auto block = [&](Index b, FV(&acc)[R]) {
        const float* k = packed + b * stride;
        for (int r = 0; r < R; ++r)
            acc[r] = FV{};
        for (Index d = 0; d < width; ++d) {
            const FV kv = load(k + d * kWidth);
            for (int r = 0; r < R; ++r) {
                if constexpr (Dist) {
                    const FV t = kv - q[r * width + d];
                    acc[r] = madd(t, t, acc[r]);
                } else {
                    acc[r] = madd(FV{} + q[r * width + d], kv, acc[r]);
                }
            }
        }
        for (int r = 0; r < R; ++r)
            acc[r] = acc[r] * scale;
    };
    FV top[R], acc[R];
    for (int r = 0; r < R; ++r)
        top[r] = FV{} - std::numeric_limits<float>::infinity();
    const Index full = nk / kWidth;
    for (Index b = 0; b < full; ++b) {
        block(b, acc);
        for (int r = 0; r < R; ++r) {
            top[r] = top[r] > acc[r] ? top[r] : acc[r];
            store(out + r * nk + b * kWidth, acc[r]);
        }
    }
    for (int r = 0; r < R; ++r) {
        float m = top[r][0];
        for (Index l = 1; l < kWidth; ++l)
            m = std::max(m, float(top[r][l]));
        row_max[r] = m;
    }
    if (full * kWidth == nk) return;
    // The last, partial block of keys (the packing padded it with zeros).
    block(full, acc);
    for (int r = 0; r < R; ++r)
        for (Index l = 0; l < nk - full * kWidth; ++l) {
            out[r * nk + full * kWidth + l] = acc[r][l];
            row_max[r] = std::max(row_max[r], float(acc[r][l]));
        }
}

template <bool Dist>
void rows_of(int rows, const float* q, Index width, const float* packed, Index stride, Index nk,
             float c, float* out, float* row_max) {
    if (rows == 8)
        dot_rows<8, Dist>(q, width, packed, stride, nk, c, out, row_max);
    else
        for (int r = 0; r < rows; ++r)
            dot_rows<1, Dist>(q + r * width, width, packed, stride, nk, c, out + r * nk,
                              row_max + r);
}

void dot_any(int rows, const float* q, Index width, const float* packed, Index stride, Index nk,
             float c, float* out, float* row_max, bool distance) {
    if (distance)
        rows_of<true>(rows, q, width, packed, stride, nk, c, out, row_max);
    else
        rows_of<false>(rows, q, width, packed, stride, nk, c, out, row_max);
}

}  // namespace
}  // namespace attn::simd::ATTN_DOT_NS
