// The half-precision kernels (widening BF16 and F16, the BF16 dot product) of every instruction
// set this host runs, against scalar references written here: the bit patterns by hand, the
// products in double.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "../simd_test_util.hpp"
#include "attn/simd/half_kernel.hpp"

namespace {

namespace simd = attn::simd;
using attn::Index;

/// binary16 → float by the definition: (−1)^s · 2^(e−15) · (1 + m/1024), subnormals
/// 2^−14 · m/1024, e = 31 infinite or NaN.
double f16_reference(std::uint16_t h) {
    const int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    const double s = sign ? -1.0 : 1.0;
    if (e == 31)
        return m ? std::numeric_limits<double>::quiet_NaN()
                 : s * std::numeric_limits<double>::infinity();
    if (e == 0) return s * std::ldexp(m / 1024.0, -14);
    return s * std::ldexp(1.0 + m / 1024.0, e - 15);
}

/// bfloat16 → float by the definition: the upper half of a float's 32 bits.
float bf16_reference(std::uint16_t h) {
    return std::bit_cast<float>(std::uint32_t(h) << 16);
}

TEST(SimdIsa, HalfWideningOfEveryInstructionSetIsExact) {
    // Every one of the 65 536 patterns, in an odd-length run (a vector tail).
    std::vector<std::uint16_t> all(65536 + 3);
    for (std::size_t i = 0; i < all.size(); ++i)
        all[i] = std::uint16_t(i);
    for (const simd::Isa isa : simd_test::runnable()) {
        const simd_test::ForcedIsa forced(isa);
        std::vector<float> bf(all.size()), f16(all.size());
        simd::widen_bf16(all.data(), Index(all.size()), bf.data());
        simd::widen_f16(all.data(), Index(all.size()), f16.data());
        for (std::size_t i = 0; i < all.size(); ++i) {
            const float want_bf = bf16_reference(all[i]);
            const double want_f16 = f16_reference(all[i]);
            if (std::isnan(want_bf)) {
                EXPECT_TRUE(std::isnan(bf[i])) << simd::isa_name(isa) << " bf16 " << i;
            } else {
                ASSERT_EQ(std::bit_cast<std::uint32_t>(bf[i]),
                          std::bit_cast<std::uint32_t>(want_bf))
                    << simd::isa_name(isa) << " bf16 " << i;
            }
            if (std::isnan(want_f16)) {
                EXPECT_TRUE(std::isnan(f16[i])) << simd::isa_name(isa) << " f16 " << i;
            } else {
                ASSERT_EQ(double(f16[i]), want_f16) << simd::isa_name(isa) << " f16 " << i;
                ASSERT_EQ(std::signbit(f16[i]), std::signbit(want_f16)) << i;  // −0 kept
            }
        }
    }
    // Hand-computed: 0x3f80 is 1.0 in bf16, 0xc040 is −3.0; 0x3c00 is 1.0 in f16, 0x0001 the
    // smallest subnormal 2^−24, 0x7bff the largest finite 65504.
    const std::uint16_t hand[] = {0x3f80, 0xc040, 0x3c00, 0x0001, 0x7bff};
    float out[5];
    simd::widen_bf16(hand, 2, out);
    EXPECT_EQ(out[0], 1.f);
    EXPECT_EQ(out[1], -3.f);
    simd::widen_f16(hand + 2, 3, out);
    EXPECT_EQ(out[0], 1.f);
    EXPECT_EQ(out[1], std::ldexp(1.f, -24));
    EXPECT_EQ(out[2], 65504.f);
}

TEST(SimdIsa, Bf16DotOfEveryInstructionSetMatchesADoubleReference) {
    std::mt19937 rng(36);
    std::normal_distribution<float> g;
    for (const Index n : {Index(1), Index(15), Index(16), Index(17), Index(255), Index(2304)}) {
        std::vector<std::uint16_t> w(static_cast<std::size_t>(n));
        std::vector<float> x(static_cast<std::size_t>(n));
        double want = 0, magnitude = 0;
        for (Index i = 0; i < n; ++i) {
            // A float rounded down to bf16 (its upper 16 bits): an exactly representable weight.
            const std::uint32_t bits = std::bit_cast<std::uint32_t>(g(rng));
            w[std::size_t(i)] = std::uint16_t(bits >> 16);
            x[std::size_t(i)] = g(rng);
            const double p = double(bf16_reference(w[std::size_t(i)])) * x[std::size_t(i)];
            want += p;
            magnitude += std::abs(p);
        }
        for (const simd::Isa isa : simd_test::runnable()) {
            const simd_test::ForcedIsa forced(isa);
            const float got = simd::dot_bf16(w.data(), x.data(), n);
            // Float sums of n products: a few ulps of the sum of magnitudes per term on a path.
            const double tol = 4.0 * std::numeric_limits<float>::epsilon() * magnitude *
                               std::max(1.0, std::log2(double(n)));
            EXPECT_NEAR(got, want, tol) << simd::isa_name(isa) << " n = " << n;
        }
    }
    // Hand-computed: (1, −3, 0.5) · (2, 1, 4) = 2 − 3 + 2 = 1.
    const std::uint16_t w3[] = {0x3f80, 0xc040, 0x3f00};
    const float x3[] = {2.f, 1.f, 4.f};
    for (const simd::Isa isa : simd_test::runnable()) {
        const simd_test::ForcedIsa forced(isa);
        EXPECT_EQ(simd::dot_bf16(w3, x3, 3), 1.f) << simd::isa_name(isa);
    }
}

}  // namespace
