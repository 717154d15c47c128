// AttnScope core — block overviews of attention matrices larger than the pixels that show them.
// GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "attn/util/types.hpp"

namespace attn {

/// How a block of cells becomes one overview cell.
enum class Aggregation {
    Max,   ///< the largest visible weight of the block (a sharp peak stays visible)
    Mean,  ///< the average weight of the block (masked cells count as weight 0)
};

/// A region of a matrix reduced to rows × cols cells by blocks of rowFactor × colFactor
/// source cells (the last block of each axis may be short).
struct AggregatedGrid {
    Index firstRow = 0, firstCol = 0;      ///< the region's top-left source cell
    Index regionRows = 0, regionCols = 0;  ///< the region's size in source cells
    int rows = 0, cols = 0;                ///< cells after aggregation
    int rowFactor = 1, colFactor = 1;      ///< source rows/columns per cell
    std::vector<double> values;            ///< rows × cols, row-major
    std::vector<std::uint8_t> masked;      ///< 1 where every source cell of the block is masked
    /// Value of cell (r, c).
    double at(int r, int c) const { return values[std::size_t(r) * std::size_t(cols) + c]; }
    /// True when every source cell of block (r, c) is masked.
    bool isMasked(int r, int c) const {
        return masked[std::size_t(r) * std::size_t(cols) + c] != 0;
    }
};

/// Block factor so that n items fit in at most `budget` cells (≥ 1).
int blockFactor(Index n, int budget);

/// Running block sums of a streamed head: per block its maximum visible weight, the sum of its
/// weights and its number of visible cells, at a fixed fine resolution. Coarser grids whose
/// factors are multiples of these are derived exactly (max of maxima, sum of sums).
struct BlockSums {
    Index source_rows = 0, source_cols = 0;
    int rows = 0, cols = 0;
    int rowFactor = 1, colFactor = 1;
    std::vector<float> max;                 ///< −inf where nothing is visible yet
    std::vector<double> sum;                ///< Σ weights of the block
    std::vector<std::uint32_t> visible;     ///< visible cells of the block
    std::vector<std::uint32_t> rows_added;  ///< source rows added per block row (a preview
                                            ///< adds some only; means divide by these)
    /// Sizes the sums for an n × m matrix at no more than `cells` blocks per axis, all empty.
    void reset(Index n, Index m, int cells);
    /// Adds source row i (rows come in increasing order): its weights w (m entries) and allowed
    /// keys (null: every key).
    void add_row(Index i, const float* w, const bool* allowed);
    /// Per column of the block row being filled: the maximum and the sum of its rows' weights.
    struct Columns {
        float* max;
        float* sum;
        bool fresh;  ///< the block row's first row: write the weights, do not fold them in
    };
    /// Starts source row i (rows in increasing order) for a caller that folds the row's weights
    /// w into the columns itself (max[j] = max(max[j], w_j), sum[j] += w_j, or = w_j when
    /// fresh), e.g. in the pass that computes them; allowed keys are counted here (null: all).
    Columns row_columns(Index i, const bool* allowed);
    /// Folds the rows added since the last block row into the blocks; call after the last row.
    void finish();

  private:
    // The rows of one block row are first combined column by column (vectorised, one pass per
    // row), and reduced across columns once per block row.
    int pending_ = -1;  ///< block row being accumulated (−1: none)
    std::vector<float> col_max_, col_sum_;
    std::vector<std::uint32_t> col_visible_;
    std::uint32_t pending_unmasked_ = 0;  ///< rows of the block row with every key allowed
    std::uint32_t pending_masked_ = 0;    ///< rows of the block row counted per column
};

/// The grid of a whole BlockSums at no more than max_rows × max_cols cells; factors are the
/// smallest multiples of the stored ones that fit, so every value is exact for its block.
AggregatedGrid reduce_blocks(const BlockSums& sums, int max_rows, int max_cols, Aggregation mode);

/// The same over the stored blocks [block_row, +block_rows) × [block_col, +block_cols) only.
AggregatedGrid reduce_blocks(const BlockSums& sums, int block_row, int block_rows, int block_col,
                             int block_cols, int max_rows, int max_cols, Aggregation mode);

/// Aggregates values (e.g. weights) into blocks. A cell is masked where `masked_scores` is −inf
/// (nullptr: nothing masked); a block is masked only when all its cells are. With budgets at
/// least the matrix size, the result is the matrix itself.
AggregatedGrid aggregate(const Matrix& values, const Matrix* masked_scores, int max_rows,
                         int max_cols, Aggregation mode);

/// The same with the mask given as allowed pairs (false = masked); an empty `visible` (or one of
/// another shape) masks nothing.
AggregatedGrid aggregate(const Matrix& values, const BoolMatrix& visible, int max_rows,
                         int max_cols, Aggregation mode);

/// Weights of one source row of a region for aggregate_region: fills w (the region's columns)
/// and allowed (one flag per column) and returns true, or returns false when every key is allowed
/// (allowed is then not read).
using RegionRow = std::function<bool(Index row, float* w, bool* allowed)>;

/// Aggregates the region [firstRow, +rows) × [firstCol, +cols) given one row at a time (in
/// order) into at most max_rows × max_cols blocks, with the rules of aggregate_blocks.
AggregatedGrid aggregate_region(Index firstRow, Index rows, Index firstCol, Index cols,
                                int max_rows, int max_cols, Aggregation mode, const RegionRow& row);

}  // namespace attn
