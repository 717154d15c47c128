// Tests of attn::Rng and derive_seed: determinism, ranges, moments.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace {

TEST(Random, SameSeedIsBitIdenticalDifferentSeedDiffers) {
    attn::Rng a(123), b(123), c(124);
    for (int i = 0; i < 100; ++i)
        EXPECT_EQ(a.next(), b.next());
    attn::Rng a2(123);
    EXPECT_NE(a2.next(), c.next());
    const attn::Matrix m1 = attn::Rng(9).normal_matrix(5, 7), m2 = attn::Rng(9).normal_matrix(5, 7);
    EXPECT_EQ(std::memcmp(m1.data(), m2.data(), sizeof(float) * 35), 0);
    EXPECT_NE(m1, attn::Rng(10).normal_matrix(5, 7));
}

TEST(Random, KnownFirstValuesPinTheAlgorithm) {
    // splitmix64(0) first output is the published 0xE220A8397B1DCDAF; our state starts with it.
    // Pin xoshiro256**'s first output for seed 0 so a platform or refactor change is noticed.
    attn::Rng r(0);
    const std::uint64_t first = r.next();
    attn::Rng again(0);
    EXPECT_EQ(again.next(), first);
    EXPECT_EQ(first, 0x99EC5F36CB75F2B4ULL);
}

TEST(Random, UniformRangeAndMoments) {
    attn::Rng r(1);
    double sum = 0, sum2 = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
        const double u = r.uniform();
        ASSERT_GE(u, 0.0);
        ASSERT_LT(u, 1.0);
        sum += u;
        sum2 += u * u;
    }
    EXPECT_NEAR(sum / n, 0.5, 0.005);
    EXPECT_NEAR(sum2 / n - (sum / n) * (sum / n), 1.0 / 12, 0.002);
}

TEST(Random, NormalMoments) {
    attn::Rng r(2);
    const attn::Matrix m = r.normal_matrix(400, 500, 2.0);
    const double mean = m.cast<double>().mean();
    const double var = (m.cast<double>().array() - mean).square().mean();
    EXPECT_NEAR(mean, 0.0, 0.01);
    EXPECT_NEAR(var, 4.0, 0.04);
    EXPECT_TRUE(m.allFinite());
}

TEST(Random, XavierBoundsAndShape) {
    attn::Rng r(3);
    const attn::Matrix w = r.xavier(30, 70);
    EXPECT_EQ(w.rows(), 30);
    EXPECT_EQ(w.cols(), 70);
    const float a = std::sqrt(6.f / 100.f);
    EXPECT_LE(w.cwiseAbs().maxCoeff(), a);
    EXPECT_GT(w.cwiseAbs().maxCoeff(), 0.9f * a);
    EXPECT_THROW(r.xavier(0, 3), attn::ArgumentError);
    EXPECT_THROW(r.normal_matrix(-1, 3), attn::ArgumentError);
}

TEST(Random, DeriveSeedSeparatesStreams) {
    std::set<std::uint64_t> seen;
    for (std::uint64_t s = 0; s < 20; ++s)
        for (std::uint64_t k = 0; k < 20; ++k)
            seen.insert(attn::derive_seed(s, k));
    EXPECT_EQ(seen.size(), 400u);
    EXPECT_EQ(attn::derive_seed(5, 6), attn::derive_seed(5, 6));
}

}  // namespace

TEST(Random, Splitmix64MatchesThePublishedSequence) {
    // Vigna's reference splitmix64 from state 0: 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, …
    std::uint64_t state = 0;
    EXPECT_EQ(attn::splitmix64(state), 0xE220A8397B1DCDAFULL);
    EXPECT_EQ(attn::splitmix64(state), 0x6E789E6AA1B965F4ULL);
    EXPECT_EQ(state, 2 * 0x9E3779B97F4A7C15ULL);
}
