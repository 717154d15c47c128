// AttnScope core — run-time dispatch of the half-precision kernels: one body
// (half_kernel_body.hpp) compiled for AVX-512F, AVX2 + FMA and the x86-64 baseline by the same
// target regions as the softmax and dot kernels, and chosen by the same active_isa(): one place
// decides the instruction set of every kernel. Widening BF16 and one token's products are bound
// by how many values an instruction moves. GPL-3.0-or-later.
#include "attn/simd/half_kernel.hpp"

#include <bit>
#include <cstdint>

#include "../util/half.hpp"
#include "attn/simd/softmax_kernel.hpp"

namespace attn::simd {

namespace {

/// One instruction set's half-precision kernels.
struct HalfKernels {
    void (*widen_bf16)(const std::uint16_t*, Index, float*);
    void (*widen_f16)(const std::uint16_t*, Index, float*);
    float (*dot_bf16)(const std::uint16_t*, const float*, Index);
};

}  // namespace

}  // namespace attn::simd

#define ATTN_HALF_NS baseline
#include "half_kernel_body.hpp"  // NOLINT(build/include)
#undef ATTN_HALF_NS

#include "target_region.hpp"

#ifdef ATTN_TARGET_REGIONS
ATTN_TARGET_AVX2_FMA
#define ATTN_HALF_NS avx2
#include "half_kernel_body.hpp"  // NOLINT(build/include)
#undef ATTN_HALF_NS
ATTN_TARGET_END

ATTN_TARGET_AVX512
#define ATTN_HALF_NS avx512
#include "half_kernel_body.hpp"  // NOLINT(build/include)
#undef ATTN_HALF_NS
ATTN_TARGET_END
#define ATTN_HALF_X86 1
#endif

namespace attn::simd {

namespace {

/// The kernels of the instruction set the softmax kernels use now (a test may force one).
const HalfKernels& half() {
#ifdef ATTN_HALF_X86
    switch (active_isa()) {
        case Isa::Avx512:
            return avx512::half_kernels;
        case Isa::Avx2:
            return avx2::half_kernels;
        case Isa::Baseline:
            break;
    }
#endif
    return baseline::half_kernels;
}

}  // namespace

void widen_bf16(const std::uint16_t* in, Index n, float* out) {
    half().widen_bf16(in, n, out);
}

void widen_f16(const std::uint16_t* in, Index n, float* out) {
    half().widen_f16(in, n, out);
}

float dot_bf16(const std::uint16_t* w, const float* x, Index n) {
    return half().dot_bf16(w, x, n);
}

}  // namespace attn::simd
