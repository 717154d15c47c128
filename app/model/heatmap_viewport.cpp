// AttnScope — the visible region of a heatmap. GPL-3.0-or-later.
#include "model/heatmap_viewport.hpp"

#include <algorithm>
#include <cmath>

namespace {

/// Zooms one axis: [first, first + len) of n about anchor, clamped to [0, n).
void zoomAxis(attn::Index n, double factor, double anchor, attn::Index& first, attn::Index& len) {
    if (n <= 0) return;
    const attn::Index lo = std::min<attn::Index>(n, HeatmapViewport::kMinCells);
    const auto next =
        std::clamp<attn::Index>(attn::Index(std::llround(double(len) / factor)), lo, n);
    // The anchor keeps its relative place in the region.
    const double t =
        len > 0 ? std::clamp((anchor + 0.5 - double(first)) / double(len), 0.0, 1.0) : 0.5;
    const double start = anchor + 0.5 - t * double(next);
    first = std::clamp<attn::Index>(attn::Index(std::llround(start)), 0, n - next);
    len = next;
}

}  // namespace

void HeatmapViewport::reset(attn::Index rowsTotal, attn::Index colsTotal) {
    n = rowsTotal;
    m = colsTotal;
    row = col = 0;
    rows = n;
    cols = m;
}

void HeatmapViewport::zoom(double factor, double anchorRow, double anchorCol) {
    if (!(factor > 0) || !std::isfinite(factor)) return;
    zoomAxis(n, factor, anchorRow, row, rows);
    zoomAxis(m, factor, anchorCol, col, cols);
}

void HeatmapViewport::pan(double dRows, double dCols) {
    row = std::clamp<attn::Index>(row + attn::Index(std::llround(dRows)), 0, n - rows);
    col = std::clamp<attn::Index>(col + attn::Index(std::llround(dCols)), 0, m - cols);
}
