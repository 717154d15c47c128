// AttnScope core — small numerical helpers shared by the theory lenses. GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/util/types.hpp"

namespace attn::lenses {

/// Equal-width histogram: counts[b] holds the values in [lo + b·width, lo + (b+1)·width).
struct Histogram {
    double lo = 0, width = 1;
    std::vector<double> counts;  ///< as densities when built with density = true
    /// Centre of bin b.
    double centre(std::size_t b) const { return lo + (static_cast<double>(b) + 0.5) * width; }
};

/// Histogram of values over [lo, hi] in `bins` bins (values outside are clamped into the edge
/// bins); density = true divides by count·width so the area is 1.
Histogram histogram(const std::vector<double>& values, int bins, double lo, double hi,
                    bool density = true);

/// Mean and (population) variance of values.
struct Moments {
    double mean = 0, variance = 0;
};
/// Mean and population variance of a sample (zeros for an empty one).
Moments moments(const std::vector<double>& values);

/// Numerically stable softmax of one vector (max subtracted).
VectorD softmax(const VectorD& scores);

/// Shannon entropy −Σ p log p in nats (0·log 0 = 0).
double entropy(const VectorD& p);

/// ‖A − B‖_F / ‖B‖_F (‖A − B‖_F when B is zero).
double relative_error(const MatrixD& approx, const MatrixD& exact);

/// Geometric sequence of integers from lo to hi (both included), `count` points, deduplicated.
std::vector<Index> geometric_range(Index lo, Index hi, int count);

}  // namespace attn::lenses
