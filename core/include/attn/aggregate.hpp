// AttnScope core — block aggregation (pooling) of attention matrices larger than the pixels that
// show them. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/types.hpp"

namespace attn {

/// How a block of cells becomes one drawn cell.
enum class Aggregation {
    Max,   ///< the largest weight of the block (a sharp peak stays visible)
    Mean,  ///< the average weight of the block (masked cells count as weight 0)
};

/// A matrix reduced to at most maxRows × maxCols cells by blocks of rowFactor × colFactor.
struct AggregatedGrid {
    int rows = 0, cols = 0;            ///< cells after aggregation
    int rowFactor = 1, colFactor = 1;  ///< source rows/columns per cell (last block may be short)
    std::vector<double> values;        ///< rows × cols, row-major
    std::vector<std::uint8_t> masked;  ///< 1 where every source cell of the block is masked
    double at(int r, int c) const { return values[std::size_t(r) * std::size_t(cols) + c]; }
    bool isMasked(int r, int c) const { return masked[std::size_t(r) * std::size_t(cols) + c]; }
};

/// Block factor so that n items fit in at most `budget` cells (≥ 1).
int blockFactor(Index n, int budget);

/// Aggregates values (e.g. weights) into blocks. A cell is masked where `masked_scores` is −inf
/// (pass nullptr when nothing is masked); a block is masked only when all its cells are. With
/// budgets at least the matrix size, the result is the matrix itself.
AggregatedGrid aggregate(const Matrix& values, const Matrix* masked_scores, int maxRows,
                         int maxCols, Aggregation mode);

/// The same with the mask given as allowed pairs (false = masked); an empty `visible` (or one of
/// another shape) masks nothing.
AggregatedGrid aggregate(const Matrix& values, const BoolMatrix& visible, int maxRows, int maxCols,
                         Aggregation mode);

}  // namespace attn
