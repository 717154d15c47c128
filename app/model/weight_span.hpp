// AttnScope — the drawn weights of a heatmap in one number. GPL-3.0-or-later.
#pragma once

#include <limits>

#include "attn/attention/aggregate.hpp"

/// The drawn weights in one number: the largest, the smallest positive (inf if none) and
/// whether some unmasked weight is exactly 0.
struct WeightSpan {
    double largest = 0;
    double smallestPositive = std::numeric_limits<double>::infinity();
    bool hasZero = false;
};

/// The span of the unmasked cells of grid.
WeightSpan spanOf(const attn::AggregatedGrid& grid);
