// AttnScope core — block aggregation of attention matrices. GPL-3.0-or-later.
#include "attn/aggregate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

int blockFactor(Index n, int budget) {
    budget = std::max(1, budget);
    return int(std::max<Index>(1, (n + budget - 1) / budget));
}

namespace {

/// hiddenRow(i) gives row i's mask data (or nullptr: nothing hidden); hidden(p, j) tests key j.
template <class HiddenRow, class Hidden>
AggregatedGrid aggregateWith(const Matrix& values, HiddenRow&& hiddenRow, Hidden&& hidden,
                             int maxRows, int maxCols, Aggregation mode) {
    AggregatedGrid g;
    const Index n = values.rows(), m = values.cols();
    g.rowFactor = blockFactor(n, maxRows);
    g.colFactor = blockFactor(m, maxCols);
    g.rows = int((n + g.rowFactor - 1) / g.rowFactor);
    g.cols = int((m + g.colFactor - 1) / g.colFactor);
    const std::size_t cells = std::size_t(g.rows) * std::size_t(g.cols);
    const bool isMax = mode == Aggregation::Max;
    const double lowest = -std::numeric_limits<double>::infinity();
    // Accumulate row by row in source order: cache-friendly for the row-major matrices.
    std::vector<double> acc(cells, isMax ? lowest : 0.0);
    std::vector<int> visible(cells, 0);
    for (Index i = 0; i < n; ++i) {
        const std::size_t base = std::size_t(i / g.rowFactor) * std::size_t(g.cols);
        const float* v = values.data() + i * m;
        const auto* s = hiddenRow(i);
        for (int c = 0; c < g.cols; ++c) {
            const Index j0 = Index(c) * g.colFactor;
            const Index j1 = std::min<Index>(m, j0 + g.colFactor);
            double a = acc[base + c];
            int seen = 0;
            for (Index j = j0; j < j1; ++j) {
                const bool off = s && hidden(s, j);
                seen += off ? 0 : 1;
                if (isMax)
                    a = off ? a : std::max(a, double(v[j]));
                else
                    a += double(v[j]);
            }
            acc[base + c] = a;
            visible[base + c] += seen;
        }
    }
    g.values.resize(cells);
    g.masked.resize(cells);
    for (int r = 0; r < g.rows; ++r) {
        const int h = int(std::min<Index>(g.rowFactor, n - Index(r) * g.rowFactor));
        for (int c = 0; c < g.cols; ++c) {
            const int w = int(std::min<Index>(g.colFactor, m - Index(c) * g.colFactor));
            const std::size_t k = std::size_t(r) * std::size_t(g.cols) + c;
            g.masked[k] = visible[k] == 0;
            if (isMax)
                g.values[k] = visible[k] == 0 ? 0.0 : acc[k];
            else
                g.values[k] = acc[k] / double(h * w);
        }
    }
    return g;
}

}  // namespace

AggregatedGrid aggregate(const Matrix& values, const Matrix* masked_scores, int maxRows,
                         int maxCols, Aggregation mode) {
    const Index m = values.cols();
    return aggregateWith(
        values, [&](Index i) { return masked_scores ? masked_scores->data() + i * m : nullptr; },
        [](const float* s, Index j) { return s[j] == -std::numeric_limits<float>::infinity(); },
        maxRows, maxCols, mode);
}

AggregatedGrid aggregate(const Matrix& values, const BoolMatrix& visible, int maxRows, int maxCols,
                         Aggregation mode) {
    const Index m = values.cols();
    const bool use = visible.rows() == values.rows() && visible.cols() == m;
    return aggregateWith(
        values, [&](Index i) { return use ? visible.data() + i * m : nullptr; },
        [](const bool* v, Index j) { return !v[j]; }, maxRows, maxCols, mode);
}

}  // namespace attn
