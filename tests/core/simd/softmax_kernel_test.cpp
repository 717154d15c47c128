// Tests of the run-time dispatched softmax kernels (attn::simd): exp against the correctly rounded
// exp over a sweep of floats, every instruction set this CPU runs forced in turn and bit-identical
// to the baseline, and softmax rows through them against a double-precision reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "../simd_test_util.hpp"
#include "../test_util.hpp"
#include "attn/attention/attention.hpp"
#include "attn/attention/softmax.hpp"
#include "attn/simd/softmax_kernel.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace {

using attn::Index;
namespace simd = attn::simd;
constexpr float kInfScore = std::numeric_limits<float>::infinity();

using simd_test::ForcedIsa;
using simd_test::runnable;

/// Position of f on the line of floats (adjacent floats differ by 1, ±0 coincide).
std::int64_t ordinal(float f) {
    std::int32_t i;
    std::memcpy(&i, &f, sizeof i);
    return i < 0 ? -static_cast<std::int64_t>(i & 0x7fffffff) : i;
}

std::uint32_t bits(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

/// The inputs of the exp sweep: every 997th float (NaN left out), a dense sweep of the subnormal
/// results (−87.4 … −104), of the overflow edge (88 … 89) and of small |x| (denormal inputs).
std::vector<float> sweep() {
    std::vector<float> x;
    for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += 997) {
        const auto u = static_cast<std::uint32_t>(b);
        float f;
        std::memcpy(&f, &u, sizeof f);
        if (!std::isnan(f)) x.push_back(f);
    }
    for (float f = -87.4f; f > -104.5f; f = std::nextafter(f, -kInfScore))
        if (bits(f) % 7 == 0) x.push_back(f);
    for (float f = 88.f; f < 89.f; f = std::nextafter(f, kInfScore))
        x.push_back(f);
    for (float f :
         {0.f, -0.f, 1e-45f, -1e-45f, 1e-40f, -1e-40f, 1.17549435e-38f, -kInfScore, kInfScore,
          -1e30f, -std::numeric_limits<float>::max(), std::numeric_limits<float>::max(),
          88.7228317f, 88.7228394f, -103.972076f, -103.972084f})
        x.push_back(f);
    return x;
}

TEST(SoftmaxKernel, ExpWithinOneUlpOfCorrectlyRoundedOnEveryIsa) {
    const std::vector<float> x = sweep();
    ASSERT_GT(x.size(), 4'000'000u);
    std::vector<float> y(x.size());
    for (simd::Isa isa : runnable()) {
        const ForcedIsa forced(isa);
        ASSERT_EQ(simd::active_isa(), isa);
        simd::exp(x.data(), y.data(), static_cast<Index>(x.size()));
        std::int64_t worst = 0;
        float worst_x = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            // exp in double, rounded once to float: correctly rounded but for double ties.
            const auto ref = static_cast<float>(std::exp(static_cast<double>(x[i])));
            const std::int64_t d = std::abs(ordinal(ref) - ordinal(y[i]));
            if (d > worst) worst = d, worst_x = x[i];
        }
        EXPECT_LE(worst, 1) << simd::isa_name(isa) << ": " << worst << " ulp at x = " << worst_x;
    }
}

TEST(SoftmaxKernel, ExpSpecialValues) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> x = {-kInfScore, kInfScore, 0.f, -0.f, nan, -104.f, 89.f, 1.f, -1.f};
    for (simd::Isa isa : runnable()) {
        const ForcedIsa forced(isa);
        std::vector<float> y(x.size());
        simd::exp(x.data(), y.data(), static_cast<Index>(x.size()));
        EXPECT_EQ(bits(y[0]), 0u) << "exp(−∞) is +0 exactly";
        EXPECT_EQ(y[1], kInfScore);
        EXPECT_EQ(y[2], 1.f);
        EXPECT_EQ(y[3], 1.f);
        EXPECT_TRUE(std::isnan(y[4]));
        EXPECT_EQ(y[5], 0.f);
        EXPECT_EQ(y[6], kInfScore);
        EXPECT_EQ(y[7], 2.71828175f);
        EXPECT_EQ(y[8], 0.36787945f);
    }
}

TEST(SoftmaxKernel, EveryIsaComputesTheBaselinesBits) {
    attn::Rng rng(11);
    // Lengths around the register and lane widths, with −∞ (masked keys) sprinkled in.
    for (Index n : {0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 33, 47, 64, 65, 1000, 2049}) {
        std::vector<float> x(static_cast<std::size_t>(n));
        for (float& v : x)
            v = rng.uniform() < 0.1 ? -kInfScore : static_cast<float>(rng.normal() * 20.0);
        struct Out {
            float max = 0;
            double sum = 0;
            std::vector<float> e, w, p;
        };
        std::vector<Out> outs;
        for (simd::Isa isa : runnable()) {
            const ForcedIsa forced(isa);
            Out o;
            o.max = simd::row_max(x.data(), n);
            o.e.resize(x.size());
            o.sum = simd::exp_sum(x.data(), o.e.data(), n, o.max);
            o.w = o.e;
            simd::scale(o.w.data(), n, 0.37f);
            o.p.resize(x.size());
            simd::exp_scale(x.data(), o.p.data(), n, o.max, 0.37f);
            outs.push_back(std::move(o));
        }
        const Out& base = outs.front();
        float top = -kInfScore;
        double sum = 0;
        for (float v : x)
            top = std::max(top, v);
        for (float v : base.e)
            sum += v;
        EXPECT_EQ(base.max, top) << "n " << n;
        EXPECT_NEAR(base.sum, sum, 1e-12 * std::max(1.0, sum)) << "n " << n;
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (x[i] == -kInfScore) {
                EXPECT_EQ(bits(base.e[i]), 0u);
            }
            EXPECT_EQ(base.w[i], base.e[i] * 0.37f);
            EXPECT_EQ(base.p[i], base.w[i]) << "exp_scale is exp_sum's exp times the scale";
        }
        for (const Out& o : outs) {
            EXPECT_EQ(o.max, base.max) << "n " << n;
            EXPECT_EQ(o.sum, base.sum) << "n " << n;
            EXPECT_EQ(o.e, base.e) << "n " << n;
            EXPECT_EQ(o.w, base.w) << "n " << n;
            EXPECT_EQ(o.p, base.p) << "n " << n;
        }
    }
    EXPECT_EQ(simd::row_max(nullptr, 0), -kInfScore);
}

TEST(SoftmaxKernel, AllFiniteFindsEveryNonFiniteOnEveryIsa) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> x(67, 3e38f);  // finite, and x · 0 does not overflow
    for (simd::Isa isa : runnable()) {
        const ForcedIsa forced(isa);
        EXPECT_TRUE(simd::all_finite(x.data(), 67));
        EXPECT_TRUE(simd::all_finite(x.data(), 0));
        for (float bad : {nan, kInfScore, -kInfScore})
            for (std::size_t at : {0u, 15u, 16u, 63u, 66u}) {
                std::vector<float> y = x;
                y[at] = bad;
                EXPECT_FALSE(simd::all_finite(y.data(), 67)) << bad << " at " << at;
                EXPECT_EQ(simd::all_finite(y.data(), static_cast<Index>(at)), true);
            }
    }
}

TEST(SoftmaxKernel, DetectsOnceAndForcesOnlyWhatTheCpuRuns) {
    const simd::Isa detected = simd::detected_isa();
    EXPECT_EQ(simd::active_isa(), detected);
    EXPECT_TRUE(simd::isa_supported(simd::Isa::Baseline));
    EXPECT_TRUE(simd::isa_supported(detected));
    {
        const ForcedIsa forced(simd::Isa::Baseline);
        EXPECT_EQ(forced.before, detected);
        EXPECT_EQ(simd::active_isa(), simd::Isa::Baseline);
    }
    EXPECT_EQ(simd::active_isa(), detected);
    if (detected != simd::Isa::Avx512)
        EXPECT_THROW_MSG(simd::force_isa(simd::Isa::Avx512), attn::ArgumentError, "AVX-512F");
    EXPECT_STREQ(simd::isa_name(simd::Isa::Avx2), "AVX2 + FMA");
}

/// Softmax of z · c with the masked keys at −∞, in double: the reference.
std::vector<double> reference_softmax(const float* z, Index n) {
    double top = -std::numeric_limits<double>::infinity();
    for (Index j = 0; j < n; ++j)
        top = std::max(top, static_cast<double>(z[j]));
    std::vector<double> w(static_cast<std::size_t>(n), 0.0);
    if (top == -std::numeric_limits<double>::infinity()) return w;
    double sum = 0;
    for (Index j = 0; j < n; ++j)
        sum += w[static_cast<std::size_t>(j)] = std::exp(static_cast<double>(z[j]) - top);
    for (double& v : w)
        v /= sum;
    return w;
}

TEST(SoftmaxKernel, SoftmaxRowsWithinOneMillionthOfDoubleOnEveryIsa) {
    attn::Rng rng(5);
    const Index nq = 37, nk = 301;
    const attn::Matrix raw = rng.normal_matrix(nq, nk) * 9.f;
    for (simd::Isa isa : runnable()) {
        const ForcedIsa forced(isa);
        for (const attn::MaskSpec& mask : testutil::all_masks(nq, nk, rng))
            for (float tau : {0.25f, 1.f, 3.f}) {
                attn::AttentionParams p;
                p.temperature = tau;
                p.mask = mask;
                const attn::HeadResult h = attn::attend_scores(raw, 64.f, p);
                for (Index i = 0; i < nq; ++i) {
                    const Eigen::RowVectorXf z = h.masked_row(i);
                    const std::vector<double> ref = reference_softmax(z.data(), nk);
                    const bool empty = h.empty_rows[static_cast<std::size_t>(i)] != 0;
                    EXPECT_EQ(empty, z.maxCoeff() == -kInfScore);
                    for (Index j = 0; j < nk; ++j)
                        ASSERT_NEAR(h.weights(i, j), ref[static_cast<std::size_t>(j)], 1e-6)
                            << simd::isa_name(isa) << " τ " << tau << " row " << i;
                }
            }
    }
}

TEST(SoftmaxKernel, SoftmaxRowsIdenticalOnEveryIsa) {
    attn::Rng rng(8);
    attn::Matrix x = rng.normal_matrix(9, 1027) * 30.f;
    x(2, 5) = -kInfScore;
    x.row(4).setConstant(-kInfScore);  // every key masked: zeros, flagged empty
    x(6, 100) = kInfScore;             // +∞ takes all the weight
    std::vector<attn::Matrix> outs;
    for (simd::Isa isa : runnable()) {
        const ForcedIsa forced(isa);
        std::vector<std::uint8_t> empty;
        outs.push_back(attn::softmax_rows(x, &empty));
        EXPECT_EQ(empty, (std::vector<std::uint8_t>{0, 0, 0, 0, 1, 0, 0, 0, 0}));
        EXPECT_EQ(outs.back()(2, 5), 0.f);
        EXPECT_EQ(outs.back()(6, 100), 1.f);
        EXPECT_EQ(outs.back().row(4).cwiseAbs().sum(), 0.f);
    }
    for (const attn::Matrix& o : outs)
        EXPECT_EQ(o, outs.front());
}

}  // namespace
