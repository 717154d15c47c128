// AttnScope core — numerically stable row softmax. GPL-3.0-or-later.
#include "attn/attention/softmax.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "attn/simd/softmax_kernel.hpp"
#include "attn/util/error.hpp"
#include "detail.hpp"

namespace attn {

namespace {

template <class T>
using RowArr = Eigen::Array<T, 1, Eigen::Dynamic>;

template <class T>
[[noreturn]] void throw_nan(Index row, Index col) {
    throw NonFiniteError("Softmax input is NaN at row " + std::to_string(row) + ", column " +
                         std::to_string(col) + ".");
}

template <class T>
void check_nan(const Eigen::Map<const RowArr<T>>& x, Index row) {
    for (Index j = 0; j < x.size(); ++j)
        if (std::isnan(x(j))) throw_nan<T>(row, j);
}

// Eigen's vectorised exp clamps its argument near −88 on SSE/AVX2, so exp(−inf) comes out as
// ~3e−39 rather than 0; a masked key must get exactly zero weight.
template <class T>
void zero_where_minus_inf(const Eigen::Map<const RowArr<T>>& x, Eigen::Map<RowArr<T>>& y) {
    constexpr T ninf = -std::numeric_limits<T>::infinity();
    if (x.minCoeff() != ninf) return;
    for (Index j = 0; j < x.size(); ++j)
        if (x(j) == ninf) y(j) = 0;
}

// Careful path for rows the fast path cannot settle: NaN, +inf, or every entry −inf.
template <class T>
bool softmax_row_slow(const Eigen::Map<const RowArr<T>>& x, Eigen::Map<RowArr<T>>& y, Index row) {
    check_nan<T>(x, row);
    const T inf = std::numeric_limits<T>::infinity();
    const Index n_inf = (x == inf).count();
    if (n_inf > 0) {
        // The limit of softmax as some logits → +inf: their weight is split equally.
        y = (x == inf).template cast<T>() / static_cast<T>(n_inf);
        return false;
    }
    const T m = x.maxCoeff();
    if (m == -inf) {
        y.setZero();
        return true;
    }
    y = (x - m).exp();
    zero_where_minus_inf<T>(x, y);
    y /= y.sum();
    return false;
}

template <class T>
bool softmax_row_t(const T* in, T* out, Index n, Index row, double* log_sum_exp = nullptr,
                   detail::RowNorm* norm = nullptr) {
    const Eigen::Map<const RowArr<T>> x(in, n);
    Eigen::Map<RowArr<T>> y(out, n);
    if (log_sum_exp) *log_sum_exp = std::numeric_limits<double>::quiet_NaN();
    if (n == 0) return true;
    // Floats go through the run-time dispatched kernels (AVX-512 even in a portable build, where
    // Eigen's exp is SSE2): the same exp(x − m), exactly 0 at −∞, summed in double.
    constexpr bool kernels = std::is_same_v<T, float>;
    T m;
    if constexpr (kernels)
        m = simd::row_max(in, n);
    else
        m = x.maxCoeff();
    if (std::isfinite(m)) {
        double s = 0;
        if constexpr (kernels) {
            s = simd::exp_sum(in, out, n, m);
        } else {
            y = (x - m).exp();
            zero_where_minus_inf<T>(x, y);
            s = static_cast<double>(y.sum());
        }
        // The sum in double: float weights then stay within about two ulps of the exact softmax.
        // With a finite max the sum lies in [1, n]; anything else means a NaN was present.
        if (std::isfinite(s)) {
            // Multiplying in T by the rounded 1/s adds at most an ulp; a pass through double
            // would cost two conversions per entry.
            if constexpr (kernels) {
                simd::scale(out, n, static_cast<float>(1.0 / s));
                if (norm) *norm = {m, static_cast<float>(1.0 / s)};
            } else {
                y *= static_cast<T>(1.0 / s);
            }
            if (log_sum_exp) *log_sum_exp = static_cast<double>(m) + std::log(s);
            return false;
        }
    }
    return softmax_row_slow<T>(x, y, row);
}

template <class M>
M softmax_rows_t(const M& logits, std::vector<std::uint8_t>* empty_rows) {
    M out(logits.rows(), logits.cols());
    if (empty_rows) empty_rows->assign(static_cast<std::size_t>(logits.rows()), 0);
    for (Index i = 0; i < logits.rows(); ++i) {
        const bool empty = softmax_row_t(logits.row(i).data(), out.row(i).data(), logits.cols(), i);
        if (empty_rows) (*empty_rows)[static_cast<std::size_t>(i)] = empty ? 1 : 0;
    }
    return out;
}

}  // namespace

namespace detail {

bool softmax_row(const float* in, float* out, Index n, Index row, double* log_sum_exp,
                 RowNorm* norm) {
    return softmax_row_t<float>(in, out, n, row, log_sum_exp, norm);
}

double exp_row(const float* in, float* out, Index n, float max) {
    return simd::exp_sum(in, out, n, max);
}

bool hardmax_row(const float* in, float* out, Index n, Index row) {
    const Eigen::Map<const RowArr<float>> x(in, n);
    Eigen::Map<RowArr<float>> y(out, n);
    check_nan<float>(x, row);
    if (n == 0) return true;
    const float m = x.maxCoeff();
    if (m == -std::numeric_limits<float>::infinity()) {
        y.setZero();
        return true;
    }
    // Ties split the weight equally, so the limit τ → 0 stays symmetric and NaN-free.
    const Index ties = (x == m).count();
    y = (x == m).cast<float>() / static_cast<float>(ties);
    return false;
}

}  // namespace detail

Matrix softmax_rows(const Matrix& logits, std::vector<std::uint8_t>* empty_rows) {
    return softmax_rows_t(logits, empty_rows);
}

MatrixD softmax_rows(const MatrixD& logits, std::vector<std::uint8_t>* empty_rows) {
    return softmax_rows_t(logits, empty_rows);
}

Matrix hardmax_rows(const Matrix& logits, std::vector<std::uint8_t>* empty_rows) {
    Matrix out(logits.rows(), logits.cols());
    if (empty_rows) empty_rows->assign(static_cast<std::size_t>(logits.rows()), 0);
    for (Index i = 0; i < logits.rows(); ++i) {
        const bool empty =
            detail::hardmax_row(logits.row(i).data(), out.row(i).data(), logits.cols(), i);
        if (empty_rows) (*empty_rows)[static_cast<std::size_t>(i)] = empty ? 1 : 0;
    }
    return out;
}

}  // namespace attn
