// AttnScope core — what the head, text, neuron and query–key views draw. GPL-3.0-or-later.
#include "attn/analysis/view_math.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>

#include "attn/attention/multihead.hpp"
#include "attn/attention/score.hpp"
#include "attn/util/error.hpp"

namespace attn {
namespace {

void check_head(const SceneResult& r, Index h) {
    if (h < 0 || h >= static_cast<Index>(r.heads.size()))
        throw ArgumentError("Head " + std::to_string(h) + " does not exist (the scene has " +
                            std::to_string(r.heads.size()) + ").");
}

void check_vectors(const SceneResult& r, Index h) {
    check_head(r, h);
    if (!r.has_qk || r.d_k <= 0)
        throw ArgumentError(
            "This scene has no query and key vectors (loaded weights or scores without q/k).");
}

/// Head h's query rows and its key head's key rows (d_k columns each).
Matrix head_queries(const SceneResult& r, Index h) {
    return r.Q.middleCols(h * r.d_k, r.d_k);
}
Matrix head_keys(const SceneResult& r, Index h) {
    const Index g = kv_head_of(h, static_cast<Index>(r.heads.size()), r.kv_heads);
    return r.K.middleCols(g * r.d_k, r.d_k);
}

}  // namespace

Matrix reduced_weights(const SceneResult& result, HeadReduce reduce, Index head) {
    if (result.heads.empty()) throw ArgumentError("The scene has no heads.");
    if (reduce == HeadReduce::One) {
        check_head(result, head);
        return result.heads[static_cast<std::size_t>(head)].weights;
    }
    Matrix m = result.heads[0].weights;
    for (std::size_t h = 1; h < result.heads.size(); ++h) {
        if (reduce == HeadReduce::Mean)
            m += result.heads[h].weights;
        else
            m = m.cwiseMax(result.heads[h].weights);
    }
    if (reduce == HeadReduce::Mean) m /= static_cast<float>(result.heads.size());
    return m;
}

Eigen::RowVectorXf combined_row(const Matrix& weights, const std::vector<Index>& queries,
                                Combine combine) {
    Eigen::RowVectorXf row = Eigen::RowVectorXf::Zero(weights.cols());
    for (Index i : queries) {
        if (i < 0 || i >= weights.rows())
            throw ArgumentError("Query " + std::to_string(i) + " does not exist.");
        row += weights.row(i);
    }
    if (combine == Combine::Mean && !queries.empty()) row /= static_cast<float>(queries.size());
    return row;
}

Eigen::VectorXf combined_column(const Matrix& weights, const std::vector<Index>& keys,
                                Combine combine) {
    Eigen::VectorXf col = Eigen::VectorXf::Zero(weights.rows());
    for (Index j : keys) {
        if (j < 0 || j >= weights.cols())
            throw ArgumentError("Key " + std::to_string(j) + " does not exist.");
        col += weights.col(j);
    }
    if (combine == Combine::Mean && !keys.empty()) col /= static_cast<float>(keys.size());
    return col;
}

namespace {

void check_query_key(const SceneResult& result, Index i, Index j) {
    // The token counts, not the weights' shape: a long (streamed) head stores no weights.
    if (i < 0 || i >= result.query_count() || j < 0 || j >= result.key_count())
        throw ArgumentError("Query " + std::to_string(i) + ", key " + std::to_string(j) +
                            " is outside the head.");
}

NeuronVectors neuron_key(const SceneResult& result, Index head, Index i, Index j, float raw,
                         float scaled, float weight) {
    NeuronVectors v;
    v.q = result.Q.block(i, head * result.d_k, 1, result.d_k);
    const Index g = kv_head_of(head, static_cast<Index>(result.heads.size()), result.kv_heads);
    v.k = result.K.block(j, g * result.d_k, 1, result.d_k);
    v.product = v.q.cwiseProduct(v.k);
    v.raw = raw;
    v.scaled = scaled;
    v.weight = weight;
    return v;
}

}  // namespace

NeuronVectors neuron_vectors(const SceneResult& result, Index head, Index i, Index j) {
    check_vectors(result, head);
    check_query_key(result, i, j);
    return neuron_key(result, head, i, j, result.raw_row(head, i)(j), result.scaled_row(head, i)(j),
                      result.weight(head, i, j));  // stored, or recomputed from Q and K
}

std::vector<NeuronVectors> neuron_rows(const SceneResult& result, Index head, Index i) {
    check_vectors(result, head);
    check_query_key(result, i, 0);
    const Eigen::RowVectorXf raw = result.raw_row(head, i);
    const Eigen::RowVectorXf scaled = result.scaled_row(head, i);
    const Eigen::RowVectorXf weights = result.weights_row(head, i);
    std::vector<NeuronVectors> rows;
    rows.reserve(static_cast<std::size_t>(result.key_count()));
    for (Index j = 0; j < result.key_count(); ++j)
        rows.push_back(neuron_key(result, head, i, j, raw(j), scaled(j), weights(j)));
    return rows;
}

std::vector<NeuronVectors> neuron_rows(const SceneResult& result, Index head,
                                       const std::vector<Index>& queries, Combine combine) {
    if (queries.empty()) throw ArgumentError("No query is selected.");
    if (queries.size() == 1) return neuron_rows(result, head, queries.front());
    std::vector<NeuronVectors> rows;
    for (Index i : queries) {
        std::vector<NeuronVectors> one = neuron_rows(result, head, i);
        if (rows.empty()) {
            rows = std::move(one);
            continue;
        }
        for (std::size_t j = 0; j < rows.size(); ++j) {
            rows[j].q += one[j].q;
            rows[j].raw += one[j].raw;
            rows[j].scaled += one[j].scaled;
            rows[j].weight += one[j].weight;
        }
    }
    const float scale = combine == Combine::Mean ? 1.f / static_cast<float>(queries.size()) : 1.f;
    for (NeuronVectors& r : rows) {
        r.q *= scale;
        r.raw *= scale;
        r.scaled *= scale;
        r.weight *= scale;
        r.product = r.q.cwiseProduct(r.k);
    }
    return rows;
}

QkProjection qk_projection(const SceneResult& result, Index head) {
    check_vectors(result, head);
    const Matrix q = head_queries(result, head), k = head_keys(result, head);
    MatrixD all(q.rows() + k.rows(), q.cols());
    all << q.cast<double>(), k.cast<double>();
    QkProjection p;
    p.mean = all.colwise().mean();
    const MatrixD centred = all.rowwise() - p.mean;
    const MatrixD cov = centred.transpose() * centred / static_cast<double>(all.rows());
    Eigen::SelfAdjointEigenSolver<MatrixD> eig(cov);
    const Index d = cov.rows();
    p.total_variance = cov.trace();
    p.axes = MatrixD::Zero(2, d);
    for (Index a = 0; a < 2 && a < d; ++a) {
        Eigen::VectorXd v = eig.eigenvectors().col(d - 1 - a);  // eigenvalues ascend
        Index top = 0;
        v.cwiseAbs().maxCoeff(&top);
        if (v(top) < 0) v = -v;
        p.axes.row(a) = v.transpose();
        p.variance(a) = std::max(0.0, eig.eigenvalues()(d - 1 - a));
    }
    const MatrixD coords = centred * p.axes.transpose();
    p.queries = coords.topRows(q.rows());
    p.keys = coords.bottomRows(k.rows());
    return p;
}

Eigen::RowVectorXf moved_query(const SceneResult& result, const QkProjection& projection,
                               Index head, Index i, double dx, double dy) {
    check_vectors(result, head);
    const Eigen::RowVectorXd shift = dx * projection.axes.row(0) + dy * projection.axes.row(1);
    return result.Q.block(i, head * result.d_k, 1, result.d_k) + shift.cast<float>();
}

Eigen::RowVectorXf weights_for_query(const SceneResult& result, Index head, Index i,
                                     const Eigen::RowVectorXf& q) {
    check_vectors(result, head);
    const HeadResult& h = result.heads[static_cast<std::size_t>(head)];
    if (q.size() != result.d_k) throw ShapeError("weights_for_query: q is not d_k wide");
    const ScoreParams& params = result.head_scores.at(static_cast<std::size_t>(head));
    Matrix raw = compute_scores(Matrix(q), head_keys(result, head), params);
    BoolMatrix allowed(1, raw.cols());
    for (Index j = 0; j < raw.cols(); ++j)
        allowed(0, j) = !result.is_masked(head, i, j);
    score_stages(h, raw.data(), i, 0, raw.cols(), allowed.data(), StageRow{.masked = raw.data()});
    const Eigen::RowVectorXd z = raw.row(0).cast<double>();
    const double top = z.maxCoeff();
    Eigen::RowVectorXf w = Eigen::RowVectorXf::Zero(z.size());
    if (!std::isfinite(top)) return w;  // every key masked
    double sum = 0;
    for (Index j = 0; j < z.size(); ++j)
        sum += std::exp(z(j) - top);
    for (Index j = 0; j < z.size(); ++j)
        w(j) = static_cast<float>(std::exp(z(j) - top) / sum);
    return w;
}

}  // namespace attn
