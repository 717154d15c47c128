// AttnScope core — run-time dispatch of the softmax kernels: one body (softmax_kernel_body.hpp)
// compiled for AVX-512F, AVX2 and the x86-64 baseline, the widest the CPU runs chosen once, so a
// portable build gets AVX-512 exp where Eigen's would be SSE2 (fixed when compiled).
// GPL-3.0-or-later.
#include "attn/simd/softmax_kernel.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "attn/util/error.hpp"

namespace attn::simd {

namespace {

/// One instruction set's kernels.
struct Kernels {
    float (*row_max)(const float*, Index);
    double (*exp_sum)(const float*, float*, Index, float);
    void (*exp_scale)(const float*, float*, Index, float, float);
    void (*scale)(float*, Index, float);
    void (*exp)(const float*, float*, Index);
    bool (*all_finite)(const float*, Index);
    StatsSums (*softmax_stats)(const float*, const float*, Index, Index, float, float, float*,
                               float*, bool, float*);
};

}  // namespace

}  // namespace attn::simd

// Each copy of the body lives in its own namespace with internal linkage, so the three never
// meet at link time (inline functions compiled for AVX-512 must not stand in for baseline ones).
#define ATTN_SIMD_NS baseline
#define ATTN_SIMD_W 4
#include "softmax_kernel_body.hpp"  // NOLINT(build/include)
#undef ATTN_SIMD_NS
#undef ATTN_SIMD_W

#include "target_region.hpp"

#ifdef ATTN_TARGET_REGIONS
ATTN_TARGET_AVX2
#define ATTN_SIMD_NS avx2
#define ATTN_SIMD_W 8
#include "softmax_kernel_body.hpp"  // NOLINT(build/include)
#undef ATTN_SIMD_NS
#undef ATTN_SIMD_W
ATTN_TARGET_END

ATTN_TARGET_AVX512
#define ATTN_SIMD_NS avx512
#define ATTN_SIMD_W 16
#include "softmax_kernel_body.hpp"  // NOLINT(build/include)
#undef ATTN_SIMD_NS
#undef ATTN_SIMD_W
ATTN_TARGET_END
#define ATTN_SIMD_X86 1
#endif

namespace attn::simd {

namespace {

const Kernels& kernels_of(Isa isa) {
#ifdef ATTN_SIMD_X86
    if (isa == Isa::Avx512) return avx512::kernels;
    if (isa == Isa::Avx2) return avx2::kernels;
#endif
    (void)isa;
    return baseline::kernels;
}

Isa detect() {
#ifdef ATTN_SIMD_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return Isa::Avx512;
    // The one place that decides: the dot kernel's AVX2 copy needs FMA too.
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::Avx2;
#endif
    return Isa::Baseline;
}

std::atomic<const Kernels*>& active_kernels() {
    static std::atomic<const Kernels*> k{&kernels_of(detected_isa())};
    return k;
}

std::atomic<Isa>& active() {
    static std::atomic<Isa> isa{detected_isa()};
    return isa;
}

const Kernels& k() {
    return *active_kernels().load(std::memory_order_relaxed);
}

}  // namespace

Isa detected_isa() {
    static const Isa isa = detect();
    return isa;
}

Isa active_isa() {
    return active().load();
}

bool isa_supported(Isa isa) {
    return static_cast<int>(isa) <= static_cast<int>(detected_isa());
}

Isa force_isa(Isa isa) {
    if (!isa_supported(isa))
        throw ArgumentError(std::string("This CPU cannot run the ") + isa_name(isa) +
                            " kernels (it has " + isa_name(detected_isa()) + ").");
    const Isa before = active().exchange(isa);
    active_kernels().store(&kernels_of(isa));
    return before;
}

const char* isa_name(Isa isa) {
    switch (isa) {
        case Isa::Avx512:
            return "AVX-512F";
        case Isa::Avx2:
            return "AVX2 + FMA";
        case Isa::Baseline:
            break;
    }
    return "baseline (SSE2)";
}

float row_max(const float* x, Index n) {
    return k().row_max(x, n);
}

double exp_sum(const float* x, float* y, Index n, float max) {
    return k().exp_sum(x, y, n, max);
}

void exp_scale(const float* x, float* y, Index n, float max, float scale) {
    k().exp_scale(x, y, n, max, scale);
}

void scale(float* y, Index n, float f) {
    k().scale(y, n, f);
}

void exp(const float* x, float* y, Index n) {
    k().exp(x, y, n);
}

bool all_finite(const float* x, Index n) {
    return k().all_finite(x, n);
}

StatsSums softmax_stats(const float* e, const float* z, Index n, Index query_pos, float inv_sum,
                        float shift, float* col_max, float* col_sum, bool fresh, float* weights) {
    return k().softmax_stats(e, z, n, query_pos, inv_sum, shift, col_max, col_sum, fresh, weights);
}

}  // namespace attn::simd
