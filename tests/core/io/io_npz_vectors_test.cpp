// .npz files with q and k (and v) [L,H,N,d_k]: raw scores from the vectors, vectors in the scene.
#include <gtest/gtest.h>

#include <cmath>

#include "../io_test_util.hpp"
#include "attn/analysis/view_math.hpp"
#include "attn/io/load.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/io/numpy/numpy_attention.hpp"
#include "attn/util/error.hpp"

using namespace attn;

namespace {

/// [L=2, H=3, N, d] values from a simple formula (distinct, signed).
std::vector<float> vectors(int n, int d, float shift) {
    std::vector<float> v;
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 3; ++h)
            for (int i = 0; i < n; ++i)
                for (int c = 0; c < d; ++c)
                    v.push_back(std::sin(shift + 0.7f * l + 1.3f * h + 0.9f * i + 0.4f * c));
    return v;
}

}  // namespace

TEST(NpzVectors, ScoresComeFromQAndK) {
    io_test::TempDir dir;
    const std::uint64_t shape[] = {2, 3, 4, 5};
    const std::vector<float> q = vectors(4, 5, 0), k = vectors(4, 5, 2), v = vectors(4, 5, 4);
    io::write_npz(dir.file("qk.npz"), {{"q", io::npy_bytes(q, shape)},
                                       {"k", io::npy_bytes(k, shape)},
                                       {"v", io::npy_bytes(v, shape)},
                                       {"tokens", io::npy_string_bytes({"a", "b", "c", "d"})}});
    const AttentionData d = io::load_attention(dir.file("qk.npz"));
    ASSERT_EQ(d.components.size(), 1u);
    const AttentionComponent& c = d.components[0];
    EXPECT_EQ(c.name, "q·k");
    EXPECT_TRUE(c.are_scores);
    EXPECT_EQ(c.d_k, 5.f);
    ASSERT_EQ(c.layers, 2);
    ASSERT_EQ(c.heads, 3);
    // Layer 1, head 2, query 3, key 1: Σ_c q·k by hand.
    const auto at = [](const std::vector<float>& x, int l, int h, int i, int col) {
        return x[std::size_t((((l * 3) + h) * 4 + i) * 5 + col)];
    };
    double s = 0;
    for (int col = 0; col < 5; ++col)
        s += double(at(q, 1, 2, 3, col)) * at(k, 1, 2, 1, col);
    EXPECT_NEAR(c.at(1, 2)(3, 1), s, 1e-5);

    SceneSpec spec;
    spec.data = std::make_shared<const AttentionData>(d);
    spec.layer = 1;
    const SceneResult r = compute_scene(spec);
    EXPECT_TRUE(r.has_qk);
    EXPECT_EQ(r.d_k, 5);
    EXPECT_FLOAT_EQ(r.Q(3, 2 * 5 + 4), at(q, 1, 2, 3, 4));
    EXPECT_FLOAT_EQ(r.V(0, 5), at(v, 1, 1, 0, 0));
    const NeuronVectors nv = neuron_vectors(r, 2, 3, 1);
    EXPECT_NEAR(nv.product.sum(), s, 1e-5);
    EXPECT_NEAR(nv.raw, s, 1e-5);
    // Weights: softmax of q·k / √5, and the query–key view's unmoved query gives the same.
    double z[4], sum = 0, top = -1e30;
    for (int j = 0; j < 4; ++j) {
        z[j] = 0;
        for (int col = 0; col < 5; ++col)
            z[j] += double(at(q, 1, 2, 3, col)) * at(k, 1, 2, j, col) / std::sqrt(5.0);
        top = std::max(top, z[j]);
    }
    for (double& x : z)
        sum += std::exp(x - top);
    const QkProjection p = qk_projection(r, 2);
    const Eigen::RowVectorXf w = weights_for_query(r, 2, 3, moved_query(r, p, 2, 3, 0, 0));
    for (int j = 0; j < 4; ++j) {
        EXPECT_NEAR(r.heads[2].weights(3, j), std::exp(z[j] - top) / sum, 1e-6);
        EXPECT_NEAR(w(j), r.heads[2].weights(3, j), 1e-5);
    }
}

TEST(NpzVectors, MismatchedOrLoneVectorsAreRefusedByName) {
    io_test::TempDir dir;
    const std::uint64_t s4[] = {2, 3, 4, 5}, s3[] = {2, 3, 4, 6};
    io::write_npz(dir.file("q.npz"), {{"q", io::npy_bytes(vectors(4, 5, 0), s4)}});
    EXPECT_NE(io_test::error_of([&] {
                  io::load_attention(dir.file("q.npz"));
              }).find("only one of 'q' and 'k'"),
              std::string::npos);
    std::vector<float> k6;
    for (int i = 0; i < 2 * 3 * 4 * 6; ++i)
        k6.push_back(float(i));
    io::write_npz(dir.file("bad.npz"),
                  {{"q", io::npy_bytes(vectors(4, 5, 0), s4)}, {"k", io::npy_bytes(k6, s3)}});
    const std::string e = io_test::error_of([&] { io::load_attention(dir.file("bad.npz")); });
    EXPECT_NE(e.find("bad.npz"), std::string::npos) << e;
    EXPECT_NE(e.find("2×3×4×6"), std::string::npos) << e;
}
