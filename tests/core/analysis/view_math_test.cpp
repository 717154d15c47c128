// The numbers behind the lines, tokens, neuron and query–key views.
#include "attn/analysis/view_math.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "../float_reference.hpp"
#include "attn/util/error.hpp"

using namespace attn;

namespace {

SceneResult computed(Index heads = 4, Index kv = 0) {
    SceneSpec spec;
    spec.heads = heads;
    spec.kv_heads = kv;
    spec.mask.kind = MaskKind::Causal;
    spec.temperature = 0.7f;
    return compute_scene(spec);
}

}  // namespace

TEST(ViewMath, ReducedWeightsAndCombinations) {
    const SceneResult r = computed();
    const Matrix mean = reduced_weights(r, HeadReduce::Mean, 0);
    const Matrix max = reduced_weights(r, HeadReduce::Max, 0);
    float m = 0, x = 0;
    for (const auto& h : r.heads)
        m += h.weights(3, 1), x = std::max(x, h.weights(3, 1));
    EXPECT_FLOAT_EQ(mean(3, 1), m / 4);
    EXPECT_FLOAT_EQ(max(3, 1), x);
    EXPECT_EQ(reduced_weights(r, HeadReduce::One, 2), r.heads[2].weights);
    const Matrix& a = r.heads[1].weights;
    const Eigen::RowVectorXf sum = combined_row(a, {2, 5}, Combine::Sum);
    EXPECT_FLOAT_EQ(sum(1), a(2, 1) + a(5, 1));
    EXPECT_NEAR(sum.sum(), 2.f, 1e-5f);
    EXPECT_NEAR(combined_row(a, {2, 5}, Combine::Mean).sum(), 1.f, 1e-5f);
    const Eigen::VectorXf col = combined_column(a, {0, 1}, Combine::Mean);
    EXPECT_FLOAT_EQ(col(4), (a(4, 0) + a(4, 1)) / 2);
    EXPECT_THROW(combined_row(a, {99}, Combine::Sum), ArgumentError);
}

TEST(ViewMath, NeuronVectorsMatchTheScoresUnderGqa) {
    const SceneResult r = computed(4, 2);
    const NeuronVectors v = neuron_vectors(r, 3, 5, 2);
    ASSERT_EQ(v.q.size(), r.d_k);
    EXPECT_NEAR(v.product.sum(), v.raw, 1e-4f);  // dot score = Σ q ⊙ k
    EXPECT_FLOAT_EQ(v.raw, r.heads[3].raw(5, 2));
    EXPECT_FLOAT_EQ(v.weight, r.heads[3].weights(5, 2));
    EXPECT_NEAR(v.scaled, v.raw / std::sqrt(float(r.d_k)) / 0.7f, 1e-5f);
    // Head 3 reads key head 1 (two query heads per key head).
    EXPECT_FLOAT_EQ(v.k(0), r.K(2, 1 * r.d_k));
}

TEST(ViewMath, NeuronRowsOfAStreamedHeadAreTheFullHeadsNumbers) {
    SceneSpec spec;
    spec.mask.kind = MaskKind::SlidingWindow;
    spec.mask.window = 2;
    const SceneResult full = compute_scene(spec, nullptr, Storage::Stages);
    const SceneResult streamed = compute_scene(spec, nullptr, Storage::Streamed);
    ASSERT_EQ(streamed.storage, attn::Storage::Streamed);
    ASSERT_EQ(streamed.heads[1].weights.size(), 0);
    for (const Index i : {Index(0), Index(4)}) {
        const std::vector<NeuronVectors> rows = neuron_rows(streamed, 1, i);
        ASSERT_EQ(Index(rows.size()), full.key_count());
        for (Index j = 0; j < full.key_count(); ++j) {
            const NeuronVectors& v = rows[std::size_t(j)];
            EXPECT_NEAR(v.weight, full.heads[1].weights(i, j), 1e-6f) << i << "," << j;
            // One row is a GEMV, the full head a GEMM, rounded differently by each CPU's
            // OpenBLAS kernel: each within the float32 bound of the exact q·k, so of each other
            // within twice that.
            const float raw = full.heads[1].raw(i, j);
            const Index d = full.d_k;
            const fref::Score exact =
                fref::score(fref::prepare(full.Q.row(i).data() + d, d, full.head_scores[1]),
                            full.K.row(j).data() + d, d, full.head_scores[1]);
            EXPECT_TRUE(fref::within(v.raw, exact.value, exact.bound)) << i << "," << j;
            EXPECT_TRUE(fref::within(raw, exact.value, exact.bound)) << i << "," << j;
            EXPECT_NEAR(v.raw, raw, 2 * exact.bound);
            EXPECT_NEAR(v.scaled, full.heads[1].scaled_row(i)(j), 1e-6f);
            EXPECT_EQ(v.product, neuron_vectors(streamed, 1, i, j).product);
        }
    }
    EXPECT_THROW(neuron_rows(streamed, 1, full.query_count()), ArgumentError);
}

TEST(ViewMath, NeuronRowsOfSeveralQueriesAreTheirSumOrMean) {
    const SceneResult r = computed();
    const std::vector<Index> qs{2, 5, 7};
    const Matrix& a = r.heads[2].weights;
    const Eigen::RowVectorXf mean = combined_row(a, qs, Combine::Mean);
    const std::vector<NeuronVectors> m = neuron_rows(r, 2, qs, Combine::Mean);
    const std::vector<NeuronVectors> s = neuron_rows(r, 2, qs, Combine::Sum);
    ASSERT_EQ(Index(m.size()), r.key_count());
    const Index d = r.d_k;
    const Eigen::RowVectorXf qMean =
        (r.Q.block(2, 2 * d, 1, d) + r.Q.block(5, 2 * d, 1, d) + r.Q.block(7, 2 * d, 1, d)) / 3;
    for (Index j = 0; j < r.key_count(); ++j) {
        const NeuronVectors& v = m[std::size_t(j)];
        EXPECT_TRUE(v.q.isApprox(qMean, 1e-6f));
        EXPECT_NEAR(v.raw, (r.heads[2].raw(2, j) + r.heads[2].raw(5, j) + r.heads[2].raw(7, j)) / 3,
                    1e-5f);
        // The score is linear in q: the mean query's product still sums to the mean score.
        EXPECT_NEAR(v.product.sum(), v.raw, 1e-4f);
        EXPECT_NEAR(v.weight, mean(j), 1e-7f);
        EXPECT_NEAR(s[std::size_t(j)].weight, 3 * mean(j), 1e-6f);
        EXPECT_NEAR(s[std::size_t(j)].raw, 3 * v.raw, 1e-4f);
    }
    // One query is neuron_rows of that query; none is refused.
    const std::vector<NeuronVectors> one = neuron_rows(r, 2, std::vector<Index>{5}, Combine::Sum);
    EXPECT_EQ(one[3].q, neuron_rows(r, 2, 5)[3].q);
    EXPECT_EQ(one[3].weight, a(5, 3));
    EXPECT_THROW(neuron_rows(r, 2, std::vector<Index>{}, Combine::Mean), ArgumentError);
}

TEST(ViewMath, WeightsForTheUnmovedQueryAreTheHeadsRow) {
    const SceneResult r = computed();
    const QkProjection p = qk_projection(r, 1);
    for (Index i : {0, 4, 9}) {
        const Eigen::RowVectorXf w = weights_for_query(r, 1, i, moved_query(r, p, 1, i, 0, 0));
        for (Index j = 0; j < w.size(); ++j)
            EXPECT_NEAR(w(j), r.heads[1].weights(i, j), 1e-5f) << i << "," << j;
    }
    // Moved, the row still sums to 1 and keeps the causal mask.
    const Eigen::RowVectorXf w = weights_for_query(r, 1, 4, moved_query(r, p, 1, 4, 3, -2));
    EXPECT_NEAR(w.sum(), 1.f, 1e-5f);
    EXPECT_EQ(w(5), 0.f);
    EXPECT_GT((w - r.heads[1].weights.row(4)).cwiseAbs().maxCoeff(), 1e-3f);
}

TEST(ViewMath, QkProjectionIsAnOrthonormalPca) {
    const SceneResult r = computed();
    const QkProjection p = qk_projection(r, 0);
    EXPECT_NEAR((p.axes * p.axes.transpose() - MatrixD::Identity(2, 2)).norm(), 0, 1e-9);
    EXPECT_GE(p.variance(0), p.variance(1));
    EXPECT_LE(p.variance.sum(), p.total_variance + 1e-9);
    // Coordinates are the centred rows on the axes; their variance is the eigenvalue.
    const Index n = r.Q.rows();
    const Eigen::RowVectorXd q3 = r.Q.block(3, 0, 1, r.d_k).cast<double>();
    EXPECT_NEAR(p.queries(3, 0), (q3 - p.mean).dot(p.axes.row(0)), 1e-6);
    MatrixD all(2 * n, 2);
    all << p.queries, p.keys;
    EXPECT_NEAR(all.col(0).squaredNorm() / double(2 * n), p.variance(0), 1e-6);
    // Moving a query by (1, 0) moves its projection by exactly (1, 0).
    const Eigen::RowVectorXd moved = moved_query(r, p, 0, 3, 1, 0).cast<double>();
    EXPECT_NEAR((moved - p.mean).dot(p.axes.row(0)) - p.queries(3, 0), 1, 1e-5);
    EXPECT_THROW(neuron_vectors(SceneResult{}, 0, 0, 0), ArgumentError);
}
