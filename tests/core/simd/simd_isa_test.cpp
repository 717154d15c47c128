// Every instruction set this host runs is one the kernel tests run: they iterate
// simd_test::runnable() (what the build compiled and the CPU runs), so a build whose kernels
// compiled to the baseline alone — clang spelling per-function targets otherwise, a lost
// #pragma — would compare the baseline with itself and pass. The host's own answer comes from
// CPUID and XGETBV read here, not from the library's detection.
#include <gtest/gtest.h>

#include <cstdint>

#include "../simd_test_util.hpp"
#include "attn/simd/dot_kernel.hpp"
#include "attn/simd/softmax_kernel.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace {

namespace simd = attn::simd;

/// The widest of the kernels' instruction sets this CPU and its OS run, from CPUID (AVX, FMA,
/// AVX2, AVX-512F) and XGETBV (the OS saves the YMM, and for AVX-512 the ZMM and mask, state).
simd::Isa host_isa() {
#if defined(__x86_64__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return simd::Isa::Baseline;
    const bool osxsave = c & (1u << 27), avx = c & (1u << 28), fma = c & (1u << 12);
    if (!osxsave || !avx) return simd::Isa::Baseline;
    std::uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 0x6u) != 0x6u) return simd::Isa::Baseline;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return simd::Isa::Baseline;
    const bool avx2 = b & (1u << 5), avx512f = b & (1u << 16);
    if (avx512f && (lo & 0xe6u) == 0xe6u) return simd::Isa::Avx512;
    if (avx2 && fma) return simd::Isa::Avx2;
#endif
    return simd::Isa::Baseline;
}

TEST(SimdIsa, EveryInstructionSetOfThisHostIsCompiledInAndTested) {
    const simd::Isa host = host_isa();
    EXPECT_EQ(simd::detected_isa(), host)
        << "this CPU runs " << simd::isa_name(host) << " but the build's kernels stop at "
        << simd::isa_name(simd::detected_isa());
    // The kernel tests force each of these in turn: every set up to the host's must be there.
    const auto runnable = simd_test::runnable();
    ASSERT_EQ(runnable.size(), std::size_t(static_cast<int>(host)) + 1)
        << "the kernel tests would not exercise " << simd::isa_name(host);
    for (const simd::Isa isa : runnable) {
        const simd_test::ForcedIsa forced(isa);
        EXPECT_EQ(simd::active_isa(), isa);
        // The dot kernel's copy for that set: as many keys per block as its vectors hold.
        EXPECT_EQ(simd::dot_lanes(), isa == simd::Isa::Avx512 ? 16
                                     : isa == simd::Isa::Avx2 ? 8
                                                              : 4)
            << simd::isa_name(isa);
    }
}

}  // namespace
