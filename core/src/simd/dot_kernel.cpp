// AttnScope core — run-time dispatch of the streamed pass's dot kernel: one body
// (dot_kernel_body.hpp) compiled for AVX-512F, AVX2 + FMA and the x86-64 baseline, so a portable
// build's long scenes get AVX-512 fused multiply-adds where Eigen's packets were SSE2 (fixed when
// compiled). GPL-3.0-or-later.
#include "attn/simd/dot_kernel.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "attn/simd/softmax_kernel.hpp"
#include "attn/util/error.hpp"

#define ATTN_DOT_NS baseline
#define ATTN_DOT_W 4
#include "dot_kernel_body.hpp"  // NOLINT(build/include)
#undef ATTN_DOT_NS
#undef ATTN_DOT_W

#include "target_region.hpp"

#ifdef ATTN_TARGET_REGIONS
ATTN_TARGET_AVX2_FMA
#define ATTN_DOT_NS avx2
#define ATTN_DOT_W 8
#include "dot_kernel_body.hpp"  // NOLINT(build/include)
#undef ATTN_DOT_NS
#undef ATTN_DOT_W
ATTN_TARGET_END

ATTN_TARGET_AVX512
#define ATTN_DOT_NS avx512
#define ATTN_DOT_W 16
#include "dot_kernel_body.hpp"  // NOLINT(build/include)
#undef ATTN_DOT_NS
#undef ATTN_DOT_W
ATTN_TARGET_END
#define ATTN_DOT_X86 1
#endif

namespace attn::simd {

Index dot_lanes() {
#ifdef ATTN_DOT_X86
    // The softmax kernels' choice (a test may force a narrower one).
    switch (active_isa()) {
        case Isa::Avx512:
            return 16;
        case Isa::Avx2:
            return 8;
        case Isa::Baseline:
            break;
    }
#endif
    return 4;
}

void dot_rows(int rows, Index lanes, const float* q, Index width, const float* packed, Index stride,
              Index nk, float c, float* out, float* row_max, Pair pair) {
    const bool distance = pair == Pair::SquaredDistance;
    switch (lanes) {
#ifdef ATTN_DOT_X86
        case 16:
            return avx512::dot_any(rows, q, width, packed, stride, nk, c, out, row_max, distance);
        case 8:
            return avx2::dot_any(rows, q, width, packed, stride, nk, c, out, row_max, distance);
#endif
        case 4:
            return baseline::dot_any(rows, q, width, packed, stride, nk, c, out, row_max, distance);
        default:
            throw ArgumentError("dot_rows: keys packed for " + std::to_string(lanes) +
                                " lanes, which no kernel of this build reads");
    }
}

}  // namespace attn::simd
