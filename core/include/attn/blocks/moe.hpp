// AttnScope core — a sparse mixture of experts (Mixtral's): top-k routing of each position to
// experts, and the weighted sum of the chosen experts' outputs. GPL-3.0-or-later.
#pragma once

#include <algorithm>
#include <numeric>
#include <vector>

#include "attn/blocks/tensor.hpp"

namespace attn::blocks {

/// Which experts each position goes to, best first, and the weight of each.
template <class S>
struct Routing {
    Eigen::Matrix<int, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> experts;  ///< rows × k
    Mat<S> weights;                                                               ///< rows × k
};

/// Top-K routing of the router's LOGITS (rows × experts) as transformers' Mixtral routes: the
/// softmax over every expert, the K largest probabilities (best first; a tie goes to the lower
/// index), divided by their sum — the softmax of the K chosen logits.
template <class S>
Routing<S> route_top_k(const Mat<S>& logits, Index k) {
    const Index rows = logits.rows(), n = logits.cols();
    Routing<S> r{decltype(Routing<S>::experts)(rows, k), Mat<S>(rows, k)};
    std::vector<int> order(std::size_t(n), 0);
    for (Index i = 0; i < rows; ++i) {
        const Row<S> e = (logits.row(i).array() - logits.row(i).maxCoeff()).exp().matrix();
        const Row<S> p = e / e.sum();
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p(a) > p(b); });
        S sum = 0;
        for (Index j = 0; j < k; ++j)
            sum += p(order[std::size_t(j)]);
        for (Index j = 0; j < k; ++j) {
            r.experts(i, j) = order[std::size_t(j)];
            r.weights(i, j) = p(order[std::size_t(j)]) / sum;
        }
    }
    return r;
}

/// Σ over each row's chosen experts of weight · EXPERT(e, rows): EXPERT runs once per expert on
/// the rows of X routed to it (rows × d in, rows × OUT_DIM out).
template <class S, class Expert>
Mat<S> mixture(const Mat<S>& x, const Routing<S>& r, Index experts, Index out_dim,
               Expert&& expert) {
    Mat<S> out = Mat<S>::Zero(x.rows(), out_dim);
    for (Index e = 0; e < experts; ++e) {
        std::vector<Index> rows;
        std::vector<S> weight;
        for (Index i = 0; i < x.rows(); ++i)
            for (Index j = 0; j < r.experts.cols(); ++j)
                if (r.experts(i, j) == e) rows.push_back(i), weight.push_back(r.weights(i, j));
        if (rows.empty()) continue;
        Mat<S> in(Index(rows.size()), x.cols());
        for (std::size_t t = 0; t < rows.size(); ++t)
            in.row(Index(t)) = x.row(rows[t]);
        const Mat<S> y = expert(e, in);
        for (std::size_t t = 0; t < rows.size(); ++t)
            out.row(rows[t]) += weight[t] * y.row(Index(t));
    }
    return out;
}

}  // namespace attn::blocks
