// AttnScope core — the matrix types the blocks are written in, for any scalar: float in the
// families, double in the tests' finite differences. GPL-3.0-or-later.
#pragma once

#include <type_traits>

#include "attn/util/types.hpp"

namespace attn::blocks {

/// A row-major S matrix (rows: positions), as attn::Matrix is for float.
template <class S>
using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// A row vector of S: a gain, a bias, one position.
template <class S>
using Row = Eigen::Matrix<S, 1, Eigen::Dynamic>;

/// A row argument (a gain, a bias; empty: none) seen without a copy; S comes from the other
/// arguments (a row of a mapped weight converts here).
template <class S>
using RowRef = std::type_identity_t<Eigen::Ref<const Row<S>>>;

/// The constant F (float) or D (double) for S: a float block uses the float literal itself, so
/// that its constants are the bits the families always used (float(double) may round twice).
template <class S>
constexpr S lit(float f, double d) {
    if constexpr (std::is_same_v<S, float>)
        return f;
    else
        return S(d);
}

}  // namespace attn::blocks
