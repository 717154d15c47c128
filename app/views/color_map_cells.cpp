// AttnScope — a head's aggregated cells as QCustomPlot colour-map data. GPL-3.0-or-later.
#include "views/color_map_cells.hpp"

#include <algorithm>
#include <limits>

namespace {

/// Reaches QCPColorMapData's protected buffer: filled here, the data is then an ordinary
/// QCPColorMapData (no member or virtual function is added).
class CellsData : public QCPColorMapData {
  public:
    CellsData(int keys, int values)
        : QCPColorMapData(keys, values, QCPRange(0, 1), QCPRange(0, 1)) {}

    void fillFrom(const attn::AggregatedGrid& cells, double floor) {
        const std::size_t n = std::size_t(cells.rows) * std::size_t(cells.cols);
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (std::size_t i = 0; i < n; ++i) {
            const double v = std::max(cells.values[i], floor);
            mData[i] = v;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        mDataBounds = QCPRange(lo, hi);
        mIsEmpty = n == 0;
        mDataModified = true;
    }
};

}  // namespace

QCPColorMapData* colorMapCells(const attn::AggregatedGrid& cells, double floor) {
    const int rows = cells.rows, cols = cells.cols;
    auto* data = new CellsData(std::max(1, cols), std::max(1, rows));
    if (rows == 0 || cols == 0) {
        data->fill(0);
        data->fillAlpha(0);
        return data;
    }
    data->fillFrom(cells, floor);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            if (cells.isMasked(r, c)) data->setAlpha(c, r, 0);  // shows the hatching
    return data;
}
