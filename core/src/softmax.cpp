// AttnScope core — numerically stable row softmax. GPL-3.0-or-later.
#include "attn/softmax.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "attn/error.hpp"
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

/// Σ y in double. Eigen 3.4 does not vectorise cast<double>().sum() (one dependent scalar add
/// per entry); sixteen independent double lanes do vectorise and round no worse.
template <class T>
double sum_in_double(const Eigen::Map<RowArr<T>>& y) {
    if constexpr (!std::is_same_v<T, float>) {
        return static_cast<double>(y.sum());
    } else {
        constexpr Index kLanes = 16;
        const float* p = y.data();
        const Index n = y.size();
        double acc[kLanes] = {};
        Index j = 0;
        for (; j + kLanes <= n; j += kLanes)
            for (Index l = 0; l < kLanes; ++l)
                acc[l] += static_cast<double>(p[j + l]);
        double s = 0;
        for (; j < n; ++j)
            s += static_cast<double>(p[j]);
        for (Index l = 0; l < kLanes; ++l)
            s += acc[l];
        return s;
    }
}

template <class T>
bool softmax_row_t(const T* in, T* out, Index n, Index row, double* log_sum_exp = nullptr,
                   detail::RowNorm* norm = nullptr) {
    const Eigen::Map<const RowArr<T>> x(in, n);
    Eigen::Map<RowArr<T>> y(out, n);
    if (log_sum_exp) *log_sum_exp = std::numeric_limits<double>::quiet_NaN();
    if (n == 0) return true;
    const T m = x.maxCoeff();
    if (std::isfinite(m)) {
        y = (x - m).exp();
        zero_where_minus_inf<T>(x, y);
        // The sum in double: float weights then stay within about two ulps of the exact softmax.
        // With a finite max the sum lies in [1, n]; anything else means a NaN was present.
        const double s = sum_in_double<T>(y);
        if (std::isfinite(s)) {
            // Multiplying in T by the rounded 1/s adds at most an ulp; a pass through double
            // would cost two conversions per entry.
            y *= static_cast<T>(1.0 / s);
            if constexpr (std::is_same_v<T, float>)
                if (norm) *norm = {m, static_cast<float>(1.0 / s)};
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
    // softmax_row_t's steps a chunk at a time, so that each chunk's exponentials are still in
    // L1 when they are checked and summed (with sum_in_double's lanes: the same sum).
    constexpr Index kLanes = 16, kChunk = 64 * kLanes;
    double acc[kLanes] = {};
    for (Index c = 0; c < n; c += kChunk) {
        const Index len = std::min(kChunk, n - c);
        const Eigen::Map<const RowArr<float>> x(in + c, len);
        Eigen::Map<RowArr<float>> y(out + c, len);
        y = (x - max).exp();
        zero_where_minus_inf<float>(x, y);
        const float* p = out + c;
        for (Index j = 0; j + kLanes <= len; j += kLanes)
            for (Index l = 0; l < kLanes; ++l)
                acc[l] += static_cast<double>(p[j + l]);
    }
    double s = 0;
    for (Index j = n / kLanes * kLanes; j < n; ++j)
        s += static_cast<double>(out[j]);
    for (Index l = 0; l < kLanes; ++l)
        s += acc[l];
    return s;
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
