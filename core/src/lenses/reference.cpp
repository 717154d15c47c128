// AttnScope core — exact dense attention (double), the lenses' reference. GPL-3.0-or-later.
#include "attn/lenses/reference.hpp"

#include <cmath>

#include "attn/util/error.hpp"

namespace attn::lenses {

MatrixD exact_weights(const MatrixD& Q, const MatrixD& K, const BoolMatrix* mask, bool scale) {
    if (Q.cols() != K.cols()) throw ShapeError("exact_attention: Q and K differ in width.");
    if (mask && (mask->rows() != Q.rows() || mask->cols() != K.rows()))
        throw ShapeError("exact_attention: the mask is not nq × nk.");
    const double c = scale && Q.cols() > 0 ? 1.0 / std::sqrt(static_cast<double>(Q.cols())) : 1.0;
    MatrixD S = (Q * K.transpose()) * c;
    for (Index i = 0; i < S.rows(); ++i) {
        double m = -INFINITY;
        for (Index j = 0; j < S.cols(); ++j)
            if (!mask || (*mask)(i, j)) m = std::max(m, S(i, j));
        double sum = 0;
        for (Index j = 0; j < S.cols(); ++j) {
            const bool visible = (!mask || (*mask)(i, j)) && m > -INFINITY;
            S(i, j) = visible ? std::exp(S(i, j) - m) : 0.0;
            sum += S(i, j);
        }
        if (sum > 0) S.row(i) /= sum;
    }
    return S;
}

MatrixD exact_attention(const MatrixD& Q, const MatrixD& K, const MatrixD& V,
                        const BoolMatrix* mask, bool scale, std::vector<std::uint8_t>* empty_rows) {
    if (K.rows() != V.rows()) throw ShapeError("exact_attention: K and V differ in length.");
    const MatrixD A = exact_weights(Q, K, mask, scale);
    if (empty_rows) {
        empty_rows->assign(static_cast<std::size_t>(A.rows()), 0);
        for (Index i = 0; i < A.rows(); ++i)
            (*empty_rows)[static_cast<std::size_t>(i)] = A.row(i).sum() == 0 ? 1 : 0;
    }
    return A * V;
}

}  // namespace attn::lenses
