// The blocks' identities: forms that must agree with each other and with the attention the
// scene computes.
#include <gtest/gtest.h>

#include <bit>
#include <span>

#include "attn/attention/attention.hpp"
#include "attn/blocks/attention.hpp"
#include "attn/blocks/embeddings.hpp"
#include "attn/blocks/mlp.hpp"
#include "attn/blocks/norms.hpp"
#include "attn/blocks/projections.hpp"
#include "attn/blocks/rotary.hpp"
#include "blocks_fd_util.hpp"

namespace {

using namespace attn;
using namespace attn::blocks;
using blocks_fd::MatD;
using blocks_fd::normal;

TEST(BlocksIdentity, RmsNormOnePlusWIsPlainRmsNormOfWPlusOne) {
    std::mt19937 rng(21);
    const Matrix x = normal(rng, 4, 9).cast<float>();
    const Row<float> w = normal(rng, 1, 9).cast<float>();
    const Row<float> w1 = w.array() + 1.f;
    // The same float operations: equal bits.
    EXPECT_EQ(rms_norm<float>(x, w, 1e-6, Gain::OnePlusW), rms_norm<float>(x, w1, 1e-6));
    const MatD xd = x.cast<double>(), dy = normal(rng, 4, 9);
    const Row<double> wd = w.cast<double>(), wd1 = wd.array() + 1.0;
    EXPECT_EQ(rms_norm_vjp<double>(xd, wd, 1e-6, dy, Gain::OnePlusW).dx,
              rms_norm_vjp<double>(xd, wd1, 1e-6, dy).dx);
}

TEST(BlocksIdentity, RmsNormOfACentredRowIsLayerNormWithoutBias) {
    std::mt19937 rng(22);
    MatD x = normal(rng, 3, 6);
    x.colwise() -= x.rowwise().mean();  // mean 0: the variance is the mean square
    const Row<double> w = normal(rng, 1, 6);
    EXPECT_LT((rms_norm<double>(x, w, 1e-5) - layer_norm<double>(x, w, Row<double>(), 1e-5))
                  .cwiseAbs()
                  .maxCoeff(),
              1e-14);
}

TEST(BlocksIdentity, WindowAtLeastNIsCausal) {
    for (const Index n : {1, 5, 9}) {
        const BoolMatrix causal = build_mask(blocks_fd::causal_spec(), n, n);
        EXPECT_EQ(build_mask(causal_window(n, n), n, n), causal);
        EXPECT_EQ(build_mask(causal_window(n, n + 3), n, n), causal);
        // Window 1: each query sees itself only.
        EXPECT_EQ(build_mask(causal_window(n, 1), n, n), BoolMatrix(BoolMatrix::Identity(n, n)));
    }
    // Window 3 of 6: query 5 sees keys 3, 4, 5.
    const BoolMatrix m = build_mask(causal_window(6, 3), 6, 6);
    EXPECT_FALSE(m(5, 2));
    EXPECT_TRUE(m(5, 3) && m(5, 4) && m(5, 5));
}

TEST(BlocksIdentity, HeadMatchesTheScenesAttention) {
    // The block's map and attn::attend (the forward of record) agree on weights and output.
    std::mt19937 rng(23);
    const Index n = 7, d = 8;
    const Matrix q = normal(rng, n, d).cast<float>(), k = normal(rng, n, d).cast<float>(),
                 v = normal(rng, n, 5).cast<float>();
    for (const MaskSpec& mask : {blocks_fd::causal_spec(), causal_window(n, 3), MaskSpec{}}) {
        AttentionParams p;
        p.mask = mask;
        p.temperature = 0.8f;
        const HeadResult r = attend(q, k, v, p);
        HeadSpec<float> s;
        s.multiplier = r.multiplier;
        s.allowed = build_mask(mask, n, n);
        const HeadForward<float> f = head_forward<float>(q, k, v, s);
        EXPECT_LT((f.weights - r.weights).cwiseAbs().maxCoeff(), 2e-6f);
        EXPECT_LT((f.out - r.output).cwiseAbs().maxCoeff(), 1e-5f);
    }
}

TEST(BlocksIdentity, KnockoutIsTheHooksRenormalisation) {
    std::mt19937 rng(24);
    const MatD q = normal(rng, 5, 3), k = normal(rng, 5, 3), v = normal(rng, 5, 2);
    HeadSpec<double> s;
    s.allowed = build_mask(blocks_fd::causal_spec(), 5, 5);
    MatD expected = head_forward<double>(q, k, v, s).weights;
    // InterventionHooks: zero the edge, divide the row by what is left.
    expected(4, 1) = 0;
    expected.row(4) /= expected.row(4).sum();
    s.knocked = {{4, 1}};
    EXPECT_LT((head_forward<double>(q, k, v, s).weights - expected).cwiseAbs().maxCoeff(), 1e-15);
}

TEST(BlocksIdentity, SoftCapFarAboveTheScoresChangesLittle) {
    std::mt19937 rng(25);
    const MatD q = normal(rng, 4, 3), k = normal(rng, 4, 3), v = normal(rng, 4, 2);
    HeadSpec<double> plain, capped;
    capped.softcap = 1e4;  // tanh(s/c)·c = s − s³/(3c²) + …: within 1e-8 for |s| < 10
    EXPECT_LT((head_forward<double>(q, k, v, plain).weights -
               head_forward<double>(q, k, v, capped).weights)
                  .cwiseAbs()
                  .maxCoeff(),
              1e-7);
    // A cap of 1 bounds every score in (−1, 1): a row's weights within a factor e² of each other
    // (the uncapped scores of these inputs spread wider).
    capped.softcap = 1;
    const MatD w = head_forward<double>(q, k, v, capped).weights;
    const MatD p = head_forward<double>(q, k, v, plain).weights;
    double widest = 0;
    for (Index i = 0; i < w.rows(); ++i) {
        EXPECT_LT(w.row(i).maxCoeff() / w.row(i).minCoeff(), std::exp(2.0));
        widest = std::max(widest, p.row(i).maxCoeff() / p.row(i).minCoeff());
    }
    EXPECT_GT(widest, std::exp(2.0));
}

TEST(BlocksIdentity, RotaryIsARotationAndPartialLeavesTheRest) {
    std::mt19937 rng(26);
    const MatD x = normal(rng, 6, 8);
    RopeSpec spec;
    spec.rotary_dim = 4;
    const RopeTable<double> t = rope_table<double>(rope_frequencies(spec), 0, 6);
    MatD r = x;
    rotate_half(r, t);
    EXPECT_EQ(r.row(0), x.row(0));              // position 0: angle 0
    EXPECT_EQ(r.rightCols(4), x.rightCols(4));  // components past rotary_dim pass unrotated
    for (Index i = 0; i < 6; ++i)
        for (Index c = 0; c < 2; ++c)  // each pair (c, c + 2) keeps its length
            EXPECT_NEAR(std::hypot(r(i, c), r(i, c + 2)), std::hypot(x(i, c), x(i, c + 2)), 1e-14);
    // Frequencies θ_i = theta^(−2i/rotary_dim): 1 and 1/100 for rotary_dim 4.
    const std::vector<double> f = rope_frequencies(spec);
    ASSERT_EQ(f.size(), 2u);
    EXPECT_DOUBLE_EQ(f[1], 0.01);
    spec.scaling = RopeScaling::Linear;
    spec.factor = 4;
    EXPECT_DOUBLE_EQ(rope_frequencies(spec)[1], 0.0025);
}

TEST(BlocksIdentity, GeluTanhApproximatesExactAndSinusoidsAreUnitPairs) {
    std::mt19937 rng(27);
    MatD a = normal(rng, 3, 10) * 3.0, b = a;
    activate(a, Activation::GeluExact);
    activate(b, Activation::GeluTanh);
    EXPECT_LT((a - b).cwiseAbs().maxCoeff(), 1e-3);  // the approximation's known error
    const MatD pe = sinusoidal_positions<double>(2, 4, 6);
    for (Index r = 0; r < 4; ++r)
        for (Index c = 0; c < 6; c += 2)
            EXPECT_NEAR(pe(r, c) * pe(r, c) + pe(r, c + 1) * pe(r, c + 1), 1.0, 1e-15);
    EXPECT_NEAR(pe(0, 0), std::sin(2.0), 1e-15);
    EXPECT_NEAR(pe(1, 3), std::cos(3.0 / std::pow(10000.0, 2.0 / 6.0)), 1e-15);
    Activation act;
    EXPECT_TRUE(activation_from_name("gelu_pytorch_tanh", act) && act == Activation::GeluTanh);
    EXPECT_FALSE(activation_from_name("quick_gelu", act));
}

TEST(BlocksIdentity, ProjectionThroughAKeptBf16TensorIsItsWidenedMatrix) {
    // A BF16 weight kept as stored: the forward (its own x·Wᵀ) and the reverse (dy·W, widened a
    // band of 256 rows at a time: 300 rows are two bands) against the exact widened values.
    std::mt19937 rng(28);
    const Index rows = 300, cols = 7;
    const MatD values = normal(rng, rows, cols);
    std::vector<std::uint16_t> bits(std::size_t(rows * cols));
    Matrix w(rows, cols);
    for (Index i = 0; i < rows * cols; ++i) {
        bits[std::size_t(i)] =
            std::uint16_t(std::bit_cast<std::uint32_t>(float(values.data()[i])) >> 16);
        w.data()[i] = std::bit_cast<float>(std::uint32_t(bits[std::size_t(i)]) << 16);
    }
    model::TensorInfo info;
    info.dtype = model::DType::BF16;
    info.dtype_name = "BF16";
    info.shape = {rows, cols};
    info.bytes = std::as_bytes(std::span(bits));
    const model::FloatTensor kept(info, rows, cols, "w", model::Keep::AsStored);
    ASSERT_FALSE(kept.is_float());
    const Matrix x = normal(rng, 3, cols).cast<float>(), dy = normal(rng, 3, rows).cast<float>();
    const MatD forward = x.cast<double>() * w.cast<double>().transpose();
    const MatD reverse = dy.cast<double>() * w.cast<double>();
    // float sums of 7 and 300 products: rounding far below 1e-5 of the largest output.
    EXPECT_LT(
        blocks_fd::relative_error(linear<float>(x, kept, Row<float>()).cast<double>(), forward),
        1e-5);
    EXPECT_LT(blocks_fd::relative_error(linear_vjp<float>(dy, kept).cast<double>(), reverse), 1e-5);
}

}  // namespace
