// AttnScope core — the body of the half-precision kernels, included once per instruction set by
// half_kernel.cpp inside a target region (target_region.hpp), in namespace ATTN_HALF_NS. No
// include guard: it is meant to be included several times. GPL-3.0-or-later.

namespace attn::simd::ATTN_HALF_NS {
namespace {

void widen_bf16_impl(const std::uint16_t* in, Index n, float* out) {
    for (Index i = 0; i < n; ++i)
        out[i] = std::bit_cast<float>(std::uint32_t(in[i]) << 16);
}

void widen_f16_impl(const std::uint16_t* in, Index n, float* out) {
    for (Index i = 0; i < n; ++i)
        out[i] = attn::detail::half_to_float(in[i]);
}

float dot_bf16_impl(const std::uint16_t* w, const float* x, Index n) {
    float acc[16] = {};
    Index c = 0;
    for (; c + 16 <= n; c += 16)
        for (int j = 0; j < 16; ++j)
            acc[j] += std::bit_cast<float>(std::uint32_t(w[c + j]) << 16) * x[c + j];
    for (; c < n; ++c)
        acc[c % 16] += std::bit_cast<float>(std::uint32_t(w[c]) << 16) * x[c];
    float sum = 0;
    for (const float a : acc)
        sum += a;
    return sum;
}

}  // namespace

const HalfKernels half_kernels{widen_bf16_impl, widen_f16_impl, dot_bf16_impl};

}  // namespace attn::simd::ATTN_HALF_NS
