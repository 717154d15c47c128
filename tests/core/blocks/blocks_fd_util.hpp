// Central finite differences for the blocks' reverse: the gradient of ⟨DY, f(X)⟩ by X, element
// by element, in double.
#pragma once

#include <functional>
#include <random>

#include "attn/attention/mask.hpp"
#include "attn/blocks/tensor.hpp"

namespace blocks_fd {

using MatD = attn::blocks::Mat<double>;

/// A ROWS × COLS matrix of normal values (seeded).
inline MatD normal(std::mt19937& rng, attn::Index rows, attn::Index cols, double sd = 1.0) {
    std::normal_distribution<double> dist(0.0, sd);
    MatD m(rows, cols);
    for (attn::Index i = 0; i < m.size(); ++i)
        m.data()[i] = dist(rng);
    return m;
}

/// ∂⟨DY, F(X)⟩/∂X by central differences of step H.
inline MatD fd_gradient(const std::function<MatD(const MatD&)>& f, const MatD& x, const MatD& dy,
                        double h = 1e-6) {
    MatD g(x.rows(), x.cols());
    for (attn::Index i = 0; i < x.size(); ++i) {
        MatD plus = x, minus = x;
        plus.data()[i] += h;
        minus.data()[i] -= h;
        g.data()[i] = (dy.cwiseProduct(f(plus)).sum() - dy.cwiseProduct(f(minus)).sum()) / (2 * h);
    }
    return g;
}

/// The causal mask's spec.
inline attn::MaskSpec causal_spec() {
    attn::MaskSpec m;
    m.kind = attn::MaskKind::Causal;
    return m;
}

/// The largest difference of A and B relative to B's largest magnitude.
inline double relative_error(const MatD& a, const MatD& b) {
    return (a - b).cwiseAbs().maxCoeff() / std::max(1e-30, b.cwiseAbs().maxCoeff());
}

}  // namespace blocks_fd
