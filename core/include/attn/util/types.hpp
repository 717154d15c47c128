// AttnScope core — basic matrix types. GPL-3.0-or-later.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

namespace attn {

/// Index type used for all sizes (Eigen's signed index).
using Index = Eigen::Index;
/// Row-major float matrix: the storage of every attention stage (rows = queries).
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// Row-major double matrix, for statistics and reference (brute-force) computations.
using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// Column vector of floats.
using Vector = Eigen::VectorXf;
/// Column vector of doubles.
using VectorD = Eigen::VectorXd;
/// Row-major boolean matrix; in a mask, true means "query i may attend to key j".
using BoolMatrix = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

}  // namespace attn
