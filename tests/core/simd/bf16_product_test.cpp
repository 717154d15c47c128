// The products straight from BF16 weights (simd::bf16_mul_t, bf16_mul) against double sums of
// the weights' exact values, over every edge of their blocking: rows of X past a tile (4) and a
// block (64), W rows past a tile (5), K past a depth block (1024), W rows past a gradient pass
// (512), 32-column remainders, and strides wider than the rows (the padding left untouched).
// The kernels run where the active instruction set is AVX-512F; elsewhere bf16_products() says
// no, and the weights' products widen instead (float_tensor_product_test). GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "../simd_test_util.hpp"
#include "attn/simd/bf16_product.hpp"

namespace {

using attn::Index;
using attn::simd::Isa;

/// A BF16 pattern near ±[0.25, 4) and its float value.
std::uint16_t random_bf16(std::mt19937& rng) {
    return std::uint16_t((rng() & 1u) << 15 | (125u + rng() % 4u) << 7 | (rng() & 0x7fu));
}
float bf16_value(std::uint16_t b) {
    return std::bit_cast<float>(std::uint32_t(b) << 16);
}

/// The rounding error float32 may make summing the products P (any order): γ_n Σ |p|.
double sum_bound(const std::vector<double>& p) {
    double a = 0;
    for (const double v : p)
        a += std::abs(v);
    return 1.01 * double(p.size()) * std::ldexp(1.0, -24) * a + 1e-30;
}

constexpr float kPad = -7.25f;  // in the strides' padding, which no product may write

/// Checks OUT (ROWS × COLS, LDO apart) against Σ_t A(i, t) · B(t, j) over TERMS within
/// float32's bound, and the padding past COLS untouched.
template <class A, class B>
void expect_sums(const std::vector<float>& out, Index rows, Index cols, Index ldo, Index terms, A a,
                 B b, const std::string& what) {
    for (Index i = 0; i < rows; ++i)
        for (Index j = 0; j < ldo; ++j) {
            const float got = out[std::size_t(i * ldo + j)];
            if (j >= cols) {
                ASSERT_EQ(got, kPad) << what << ": padding written at " << i << ", " << j;
                continue;
            }
            std::vector<double> p;
            double want = 0;
            for (Index t = 0; t < terms; ++t) {
                p.push_back(double(a(i, t)) * double(b(t, j)));
                want += p.back();
            }
            ASSERT_NEAR(double(got), want, sum_bound(p)) << what << " at " << i << ", " << j;
        }
}

TEST(Bf16Product, TheKernelsRunExactlyWhereAvx512IsActive) {
    for (const Isa isa : simd_test::runnable()) {
        const simd_test::ForcedIsa forced(isa);
        EXPECT_EQ(attn::simd::bf16_products(), isa == Isa::Avx512) << attn::simd::isa_name(isa);
    }
}

TEST(Bf16Product, ForwardEqualsTheExactSums) {
    if (!attn::simd::isa_supported(Isa::Avx512)) {
        // This CPU has no kernel to check: its products take the widening path, which
        // float_tensor_product_test checks on every instruction set it runs.
        EXPECT_FALSE(attn::simd::bf16_products());
        return;
    }
    const simd_test::ForcedIsa forced(Isa::Avx512);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (const Index m : {1, 3, 4, 5, 9, 64, 70})
        for (const Index k : {32, 96, 1056})
            for (const Index n : {1, 4, 5, 6, 11}) {
                const Index ldx = k + 3, ldw = k + 40, ldo = n + 2;
                std::vector<float> x(std::size_t(m * ldx), kPad), out(std::size_t(m * ldo), kPad);
                std::vector<std::uint16_t> w(std::size_t(n * ldw), 0x7fc0);  // NaN padding
                for (Index i = 0; i < m; ++i)
                    for (Index c = 0; c < k; ++c)
                        x[std::size_t(i * ldx + c)] = u(rng);
                for (Index j = 0; j < n; ++j)
                    for (Index c = 0; c < k; ++c)
                        w[std::size_t(j * ldw + c)] = random_bf16(rng);
                std::vector<float> xr(std::size_t(m * k), kPad);
                attn::simd::bf16_reorder(x.data(), ldx, m, k, xr.data());
                attn::simd::bf16_mul_t(xr.data(), m, k, w.data(), ldw, n, out.data(), ldo);
                expect_sums(
                    out, m, n, ldo, k,
                    [&](Index i, Index c) { return x[std::size_t(i * ldx + c)]; },
                    [&](Index c, Index j) { return bf16_value(w[std::size_t(j * ldw + c)]); },
                    "m " + std::to_string(m) + " k " + std::to_string(k) + " n " +
                        std::to_string(n));
            }
}

TEST(Bf16Product, GradientEqualsTheExactSums) {
    if (!attn::simd::isa_supported(Isa::Avx512)) {
        EXPECT_FALSE(attn::simd::bf16_products());
        return;
    }
    const simd_test::ForcedIsa forced(Isa::Avx512);
    std::mt19937 rng(12);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (const Index m : {1, 5, 6, 7, 13, 64})
        for (const Index r : {1, 511, 1030})
            for (const Index nc : {32, 64, 96, 160}) {
                const Index ldy = r + 5, ldw = nc + 48, ldo = nc + 16;
                std::vector<float> dy(std::size_t(m * ldy), kPad), out(std::size_t(m * ldo), kPad);
                std::vector<std::uint16_t> w(std::size_t(r * ldw), 0x7fc0);
                for (Index i = 0; i < m; ++i)
                    for (Index q = 0; q < r; ++q)
                        dy[std::size_t(i * ldy + q)] = u(rng);
                for (Index q = 0; q < r; ++q)
                    for (Index c = 0; c < nc; ++c)
                        w[std::size_t(q * ldw + c)] = random_bf16(rng);
                attn::simd::bf16_mul(dy.data(), ldy, m, r, w.data(), ldw, nc, out.data(), ldo);
                expect_sums(
                    out, m, nc, ldo, r,
                    [&](Index i, Index q) { return dy[std::size_t(i * ldy + q)]; },
                    [&](Index q, Index c) { return bf16_value(w[std::size_t(q * ldw + c)]); },
                    "m " + std::to_string(m) + " r " + std::to_string(r) + " nc " +
                        std::to_string(nc));
            }
}

}  // namespace
