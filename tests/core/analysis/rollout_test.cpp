// Attention rollout: a hand-computed two-layer case, identities, and the real GPT-2 fixture.
#include "attn/analysis/rollout.hpp"

#include <gtest/gtest.h>

#include "../io_test_util.hpp"
#include "attn/io/load.hpp"
#include "attn/util/error.hpp"

using namespace attn;

TEST(Rollout, TwoLayersByHand) {
    MatrixD m0(2, 2), m1(2, 2);
    m0 << 1, 0, 0.5, 0.5;
    m1 << 0, 1, 1, 0;
    // Â_0 = 0.5·M0 + 0.5·I = [[1, 0], [0.25, 0.75]] (rows already sum to 1).
    // Â_1 = [[0.5, 0.5], [0.5, 0.5]]; R_1 = Â_1 · Â_0 = [[0.625, 0.375], [0.625, 0.375]].
    const std::vector<MatrixD> r = rollout({m0, m1});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_DOUBLE_EQ(r[0](1, 0), 0.25);
    EXPECT_DOUBLE_EQ(r[0](1, 1), 0.75);
    EXPECT_DOUBLE_EQ(r[1](0, 0), 0.625);
    EXPECT_DOUBLE_EQ(r[1](1, 1), 0.375);
}

TEST(Rollout, RenormalisesRowsThatDoNotSumToOne) {
    MatrixD m = MatrixD::Zero(2, 2);  // a fully masked layer: only the residual is left
    m(1, 0) = 1;
    const std::vector<MatrixD> r = rollout({m});
    EXPECT_DOUBLE_EQ(r[0](0, 0), 1.0);
    EXPECT_DOUBLE_EQ(r[0](1, 0), 0.5);
}

TEST(Rollout, RefusesCrossAttentionAndRaggedLayers) {
    SceneSpec cross;
    cross.text = "a b c";
    cross.cross_text = "x y z";  // same length, other tokens: still not self-attention
    EXPECT_THROW(rollout(cross), ArgumentError);
    EXPECT_THROW(rollout({MatrixD::Identity(2, 2), MatrixD::Identity(3, 3)}), ShapeError);
    EXPECT_THROW(rollout({MatrixD::Zero(2, 3)}), ShapeError);
}

TEST(Rollout, Gpt2FixtureMatchesABruteForceProductAndNumpy) {
    SceneSpec spec;
    spec.data = std::make_shared<const AttentionData>(
        io::load_attention(io_test::real("gpt2_small_ex0.npz")));
    spec.component = 1;  // the model's own post-softmax weights
    const std::vector<MatrixD> r = rollout(spec);
    ASSERT_EQ(r.size(), 12u);
    // Brute force: loops over the loaded matrices, no Eigen products.
    const AttentionComponent& c = spec.data->components[1];
    const Index n = 6;
    MatrixD acc = MatrixD::Identity(n, n);
    for (Index l = 0; l < 12; ++l) {
        MatrixD a(n, n);
        for (Index i = 0; i < n; ++i) {
            double sum = 0;
            for (Index j = 0; j < n; ++j) {
                double m = 0;
                for (Index h = 0; h < 12; ++h)
                    m += c.at(l, h)(i, j);
                a(i, j) = 0.5 * m / 12 + (i == j ? 0.5 : 0.0);
                sum += a(i, j);
            }
            for (Index j = 0; j < n; ++j)
                a(i, j) /= sum;
        }
        MatrixD next = MatrixD::Zero(n, n);
        for (Index i = 0; i < n; ++i)
            for (Index j = 0; j < n; ++j)
                for (Index k = 0; k < n; ++k)
                    next(i, j) += a(i, k) * acc(k, j);
        acc = next;
        for (Index i = 0; i < n; ++i) {
            EXPECT_NEAR(r[l].row(i).sum(), 1.0, 1e-12);
            for (Index j = 0; j < n; ++j)
                EXPECT_NEAR(r[l](i, j), acc(i, j), 1e-12);
        }
    }
    // numpy (float64 from the float32 weights): R_11[5, 0] = 0.99380585, the attention sink.
    EXPECT_NEAR(r[11](5, 0), 0.99380585, 1e-6);
    EXPECT_EQ(r[11](0, 1), 0.0);  // causal: the first token never receives from later ones
}
