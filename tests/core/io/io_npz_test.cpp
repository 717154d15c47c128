// Tests of the .npz reader and writer, with the real GPT-2 fixture: its raw scores, scaled by
// 1/√64 and causally masked, reproduce the model's own weights.
#include <gtest/gtest.h>

#include <cmath>

#include "../io_test_util.hpp"
#include "attn/attention/attention.hpp"
#include "attn/io/load.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/util/error.hpp"

namespace {

using namespace attn;
using io_test::data;

TEST(Npz, StoredArchiveWithScoresAndWeights) {
    const AttentionData d = io::load_npz_attention(data("npy/stored.npz"));
    ASSERT_EQ(d.components.size(), 2u);
    EXPECT_EQ(d.components[0].name, "scores");
    EXPECT_TRUE(d.components[0].are_scores);
    EXPECT_EQ(d.components[1].name, "attention");
    EXPECT_FALSE(d.components[1].are_scores);
    EXPECT_EQ(d.components[0].layers, 2);
    EXPECT_EQ(d.components[0].heads, 2);
    EXPECT_EQ(d.components[0].q_tokens, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
    EXPECT_EQ(d.components[0].d_k, 64.f);
    EXPECT_EQ(d.components[0].at(1, 1)(4, 4), (99.f - 50.f) / 16.f);
}

TEST(Npz, DeflatedArchiveWithDk) {
    const AttentionData d = io::load_npz_attention(data("npy/deflated.npz"));
    ASSERT_EQ(d.components.size(), 1u);
    EXPECT_EQ(d.components[0].d_k, 32.f);
    EXPECT_EQ(d.components[0].heads, 2);
    EXPECT_NEAR(d.components[0].at(0, 1).row(3).sum(), 1.f, 1e-6f);
}

TEST(Npz, CrossAttentionWithQueryAndKeyTokens) {
    const AttentionData d = io::load_attention(data("npy/cross.npz"));
    const auto& c = d.components[0];
    EXPECT_EQ(c.q_tokens, (std::vector<std::string>{"x", "y", "z"}));
    EXPECT_EQ(c.k_tokens, (std::vector<std::string>{"A", "B", "C", "D"}));
    EXPECT_EQ(c.at(0, 0).rows(), 3);
    EXPECT_EQ(c.at(0, 0).cols(), 4);
}

TEST(Npz, WithoutTokensPositionsAreLabels) {
    const AttentionData d = io::load_attention(data("npy/no_tokens.npz"));
    EXPECT_EQ(d.components[0].q_tokens, (std::vector<std::string>{"0", "1", "2", "3"}));
}

TEST(Npz, WriterRoundTrips) {
    io_test::TempDir dir;
    const std::vector<float> w = {0.25f, 0.75f, 1.f, 0.f, 0.5f, 0.5f, 0.f, 1.f};
    const std::uint64_t shape[] = {2, 2, 2};
    io::write_npz(dir.file("x.npz"), {{"attention", io::npy_bytes(w, shape)},
                                      {"tokens", io::npy_string_bytes({"α", "β"})}});
    const AttentionData d = io::load_attention(dir.file("x.npz"));
    ASSERT_EQ(d.components.size(), 1u);
    EXPECT_EQ(d.components[0].heads, 2);
    EXPECT_EQ(d.components[0].q_tokens, (std::vector<std::string>{"α", "β"}));
    EXPECT_EQ(d.components[0].at(0, 1)(1, 1), 1.f);
    EXPECT_FALSE(d.components[0].are_scores);
}

// --- the real GPT-2 fixture -----------------------------------------------------------------

const AttentionData& gpt2_example() {
    static const AttentionData d =
        std::get<AttentionData>(io::load_any(io_test::real("gpt2_small_ex0.npz")));
    return d;
}

/// Causally masked row softmax of scores·scale in double precision (independent of core).
Matrix local_softmax(const Matrix& scores, double scale) {
    Matrix w = Matrix::Zero(scores.rows(), scores.cols());
    for (Index i = 0; i < scores.rows(); ++i) {
        double mx = -INFINITY, sum = 0;
        for (Index j = 0; j <= i; ++j)
            mx = std::max(mx, scores(i, j) * scale);
        for (Index j = 0; j <= i; ++j)
            sum += std::exp(scores(i, j) * scale - mx);
        for (Index j = 0; j <= i; ++j)
            w(i, j) = static_cast<float>(std::exp(scores(i, j) * scale - mx) / sum);
    }
    return w;
}

double row_entropy(const Matrix& w, Index i) {
    double h = 0;
    for (Index j = 0; j < w.cols(); ++j)
        if (w(i, j) > 0) h -= w(i, j) * std::log(static_cast<double>(w(i, j)));
    return h;
}

TEST(RealGpt2, LoadsWithShapesAndTokens) {
    const AttentionData& d = gpt2_example();
    ASSERT_EQ(d.components.size(), 2u);
    for (const auto& c : d.components) {
        EXPECT_EQ(c.layers, 12);
        EXPECT_EQ(c.heads, 12);
        EXPECT_EQ(c.d_k, 64.f);
        EXPECT_EQ(c.q_tokens, (std::vector<std::string>{"Data", " visualization", " em", "powers",
                                                        " users", " to"}));
        EXPECT_EQ(c.at(11, 11).rows(), 6);
        EXPECT_EQ(c.at(11, 11).cols(), 6);
    }
    EXPECT_TRUE(d.components[0].are_scores);
    EXPECT_FALSE(d.components[1].are_scores);
}

TEST(RealGpt2, ScaledCausalSoftmaxOfScoresReproducesTheWeights) {
    const AttentionData& d = gpt2_example();
    AttentionParams p;
    p.scale = true;
    p.mask.kind = MaskKind::Causal;
    float worst_core = 0, worst_local = 0;
    for (Index l = 0; l < 12; ++l)
        for (Index h = 0; h < 12; ++h) {
            const Matrix& s = d.components[0].at(l, h);
            const Matrix& w = d.components[1].at(l, h);
            const HeadResult r = attend_scores(s, 64.f, p);
            worst_core = std::max(worst_core, (r.weights - w).cwiseAbs().maxCoeff());
            worst_local =
                std::max(worst_local, (local_softmax(s, 1.0 / 8.0) - w).cwiseAbs().maxCoeff());
        }
    // The fixture's fact (2e-7) holds for an exactly rounded softmax (checked in double here);
    // core's float32 softmax (vectorised exp, multiply by 1/Σ) lands within 2.4e-7, 2 ulp of 1.
    EXPECT_LE(worst_local, 2e-7f);
    EXPECT_LE(worst_core, 3e-7f);
}

TEST(RealGpt2, WithoutScalingTheLastRowSaturates) {
    const AttentionData& d = gpt2_example();
    AttentionParams scaled, unscaled;
    scaled.mask.kind = unscaled.mask.kind = MaskKind::Causal;
    unscaled.scale = false;
    double h_scaled = 0, h_unscaled = 0, h_local = 0;
    for (Index l = 0; l < 12; ++l)
        for (Index h = 0; h < 12; ++h) {
            const Matrix& s = d.components[0].at(l, h);
            h_scaled += row_entropy(attend_scores(s, 64.f, scaled).weights, 5);
            h_unscaled += row_entropy(attend_scores(s, 64.f, unscaled).weights, 5);
            h_local += row_entropy(local_softmax(s, 1.0), 5);
        }
    h_scaled /= 144, h_unscaled /= 144, h_local /= 144;
    EXPECT_NEAR(h_scaled, 0.96, 0.02);
    EXPECT_NEAR(h_unscaled, 0.11, 0.02);
    EXPECT_NEAR(h_local, h_unscaled, 1e-4);
}

}  // namespace
