// Tests of the run-time dispatched statistics pass of a softmax row (attn::simd::softmax_stats):
// every instruction set this CPU runs gives the baseline's bits, in every variant (columns,
// stored weights, scores or none), and the sums are those of a plain double-precision loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "../simd_test_util.hpp"
#include "attn/simd/softmax_kernel.hpp"
#include "attn/util/random.hpp"

namespace {

using attn::Index;
namespace simd = attn::simd;
constexpr float kInfStat = std::numeric_limits<float>::infinity();

/// One softmax row: scores z (every 7th masked to −∞), e = exp(z − max), inv = 1 / Σ e.
struct KernelRow {
    std::vector<float> z, e;
    float inv = 0, shift = 0;
    Index query = 0;
};

KernelRow make_row(Index n, std::uint64_t seed) {
    attn::Rng rng(seed);
    KernelRow r;
    r.z.resize(std::size_t(n));
    for (Index j = 0; j < n; ++j)
        r.z[std::size_t(j)] = j % 7 == 3 ? -kInfStat : 3.f * float(rng.normal());
    if (n > 3) r.z[0] = -kInfStat;  // the shift is the first finite score, not the first score
    const float max = *std::max_element(r.z.begin(), r.z.end());
    r.e.resize(std::size_t(n));
    r.inv = float(1.0 / simd::exp_sum(r.z.data(), r.e.data(), n, max));
    for (float v : r.z)
        if (std::isfinite(v)) {
            r.shift = v;
            break;
        }
    r.query = n / 3;
    return r;
}

bool same_stat_bits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

const Index kLengths[] = {1, 5, 15, 16, 17, 100, 1023, 1024, 1025, 2049, 3001};

TEST(StatsKernel, EveryIsaComputesTheBaselinesBitsInEveryVariant) {
    for (const Index n : kLengths)
        for (int variant = 0; variant < 8; ++variant) {
            const bool columns = variant & 1, store = variant & 2, scores = !(variant & 4);
            const KernelRow row = make_row(n, 40 + std::uint64_t(n));
            std::vector<float> base_w, base_max, base_sum;
            simd::StatsSums base;
            for (const simd::Isa isa : simd_test::runnable()) {
                const simd_test::ForcedIsa forced(isa);
                // Columns folded into earlier values (not fresh), as a block's later rows are.
                std::vector<float> w(std::size_t(n), -1.f), cmax(std::size_t(n), 0.25f),
                    csum(std::size_t(n), 0.5f);
                const simd::StatsSums s = simd::softmax_stats(
                    row.e.data(), scores ? row.z.data() : nullptr, n, row.query, row.inv, row.shift,
                    columns ? cmax.data() : nullptr, columns ? csum.data() : nullptr, false,
                    store ? w.data() : nullptr);
                if (isa == simd::Isa::Baseline) {
                    base = s, base_w = w, base_max = cmax, base_sum = csum;
                    continue;
                }
                SCOPED_TRACE(std::string(simd::isa_name(isa)) + ", n = " + std::to_string(n) +
                             ", variant " + std::to_string(variant));
                EXPECT_TRUE(same_stat_bits(s.count, base.count));
                EXPECT_TRUE(same_stat_bits(s.sum, base.sum));
                EXPECT_TRUE(same_stat_bits(s.sumsq, base.sumsq));
                EXPECT_TRUE(same_stat_bits(s.distance, base.distance));
                EXPECT_TRUE(same_stat_bits(s.az, base.az));
                EXPECT_EQ(s.best, base.best);
                EXPECT_EQ(w, base_w);
                EXPECT_EQ(cmax, base_max);
                EXPECT_EQ(csum, base_sum);
            }
        }
}

TEST(StatsKernel, SumsAreThoseOfAPlainDoubleLoop) {
    for (const Index n : kLengths) {
        const KernelRow row = make_row(n, 90 + std::uint64_t(n));
        const auto size = static_cast<std::size_t>(n);
        std::vector<float> w(size), cmax(size), csum(size);
        const simd::StatsSums s =
            simd::softmax_stats(row.e.data(), row.z.data(), n, row.query, row.inv, row.shift,
                                cmax.data(), csum.data(), true, w.data());
        double count = 0, sum = 0, sumsq = 0, distance = 0, az = 0, weights = 0;
        float best = 0;
        for (Index j = 0; j < n; ++j) {
            const std::size_t k = std::size_t(j);
            const float wj = row.e[k] * row.inv;  // the softmax's own last step, to the bit
            ASSERT_EQ(w[k], wj) << j;
            ASSERT_EQ(cmax[k], wj) << j;  // fresh: the columns take the row's weights
            ASSERT_EQ(csum[k], wj) << j;
            best = std::max(best, wj);
            weights += wj;
            distance += double(wj) * double(std::abs(j - row.query));
            if (std::isfinite(row.z[k])) {
                const double x = double(row.z[k]) - double(row.shift);
                count += 1, sum += x, sumsq += x * x, az += double(wj) * double(row.z[k]);
            }
        }
        SCOPED_TRACE("n = " + std::to_string(n));
        EXPECT_NEAR(weights, 1.0, 1e-6);
        EXPECT_EQ(s.count, count);
        EXPECT_EQ(s.best, best);
        const auto near = [](double a, double b) {
            return std::abs(a - b) <= 1e-5 * std::max(1.0, std::abs(b));
        };
        EXPECT_PRED2(near, s.sum, sum);
        EXPECT_PRED2(near, s.sumsq, sumsq);
        EXPECT_PRED2(near, s.distance, distance);
        EXPECT_PRED2(near, s.az, az);
        // Without scores (weights as they are, e.g. a loaded post-softmax head): the same
        // distance and maximum, and no score sums.
        const simd::StatsSums bare = simd::softmax_stats(w.data(), nullptr, n, row.query, 1.f, 0.f,
                                                         nullptr, nullptr, false, nullptr);
        EXPECT_EQ(bare.distance, s.distance);
        EXPECT_EQ(bare.best, s.best);
        EXPECT_EQ(bare.count + bare.sum + bare.sumsq + bare.az, 0.0);
    }
}

}  // namespace
