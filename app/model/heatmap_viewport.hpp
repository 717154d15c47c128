// AttnScope — the visible region of a heatmap: scroll-wheel zoom and drag pan, like a map.
// GPL-3.0-or-later.
#pragma once

#include "attn/util/types.hpp"

/// Rows [row, row + rows) × columns [col, col + cols) of an n × m matrix. Zooming keeps the cell
/// under the cursor in place; the region never leaves the matrix and never shrinks below
/// kMinCells a side (single, labelled cells).
struct HeatmapViewport {
    static constexpr attn::Index kMinCells = 4;
    attn::Index n = 0, m = 0;
    attn::Index row = 0, rows = 0, col = 0, cols = 0;

    /// Shows the whole n × m matrix.
    void reset(attn::Index n, attn::Index m);
    /// True when the whole matrix is shown.
    bool whole() const { return row == 0 && col == 0 && rows == n && cols == m; }
    /// Zooms by factor (> 1: in) about the fractional cell (anchorRow, anchorCol), which stays
    /// under the cursor.
    void zoom(double factor, double anchorRow, double anchorCol);
    /// Moves the region by whole cells (positive: towards later queries/keys), clamped.
    void pan(double dRows, double dCols);
    bool operator==(const HeatmapViewport&) const = default;
};
