// AttnScope core — block overviews of attention matrices. GPL-3.0-or-later.
#include "attn/attention/aggregate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>

namespace attn {

int blockFactor(Index n, int budget) {
    budget = std::max(1, budget);
    return static_cast<int>(std::max<Index>(1, (n + budget - 1) / budget));
}

namespace {

int blocks_of(Index n, int factor) {
    return static_cast<int>((n + factor - 1) / factor);
}

/// Block accumulation of a region, one source row after another (cache-friendly on row-major
/// matrices): per block the maximum visible value, the sum and the visible count.
class Accumulator {
  public:
    Accumulator(Index firstRow, Index rows, Index firstCol, Index cols, int rowFactor,
                int colFactor, Aggregation mode)
        : mode_(mode) {
        g_.firstRow = firstRow;
        g_.firstCol = firstCol;
        g_.regionRows = rows;
        g_.regionCols = cols;
        g_.rowFactor = rowFactor;
        g_.colFactor = colFactor;
        g_.rows = blocks_of(rows, rowFactor);
        g_.cols = blocks_of(cols, colFactor);
        const std::size_t cells = std::size_t(g_.rows) * std::size_t(g_.cols);
        acc_.assign(cells,
                    mode == Aggregation::Max ? -std::numeric_limits<double>::infinity() : 0.0);
        visible_.assign(cells, 0);
        if (mode == Aggregation::Max) {
            col_max_.assign(static_cast<std::size_t>(cols),
                            -std::numeric_limits<float>::infinity());
            col_seen_.assign(static_cast<std::size_t>(cols), 0u);
        }
    }

    /// Local row r (0-based in the region): cols values and allowed flags (null: all allowed).
    void add(Index r, const float* v, const bool* allowed) {
        if (mode_ == Aggregation::Max) {
            add_max(r, v, allowed);
            return;
        }
        const std::size_t base = std::size_t(r / g_.rowFactor) * std::size_t(g_.cols);
        const Index m = g_.regionCols;
        for (int c = 0; c < g_.cols; ++c) {
            const Index j0 = Index(c) * g_.colFactor;
            const Index j1 = std::min<Index>(m, j0 + g_.colFactor);
            double a = acc_[base + c];
            Index seen = 0;
            if (!allowed) {
                seen = j1 - j0;
                const Eigen::Map<const Eigen::ArrayXf> seg(v + j0, j1 - j0);
                a += double(seg.sum());
            } else {
                for (Index j = j0; j < j1; ++j) {
                    seen += allowed[j] ? 1 : 0;
                    a += double(v[j]);
                }
            }
            acc_[base + c] = a;
            visible_[base + c] += seen;
        }
    }

    AggregatedGrid finish() {
        flush_max();
        const std::size_t cells = acc_.size();
        g_.values.resize(cells);
        g_.masked.resize(cells);
        for (int r = 0; r < g_.rows; ++r) {
            const Index h = std::min<Index>(g_.rowFactor, g_.regionRows - Index(r) * g_.rowFactor);
            for (int c = 0; c < g_.cols; ++c) {
                const Index w =
                    std::min<Index>(g_.colFactor, g_.regionCols - Index(c) * g_.colFactor);
                const std::size_t k = std::size_t(r) * std::size_t(g_.cols) + c;
                g_.masked[k] = visible_[k] == 0 ? 1 : 0;
                if (mode_ == Aggregation::Max)
                    g_.values[k] = visible_[k] == 0 ? 0.0 : acc_[k];
                else
                    g_.values[k] = acc_[k] / double(h * w);
            }
        }
        return std::move(g_);
    }

  private:
    /// The maximum is order-free: a block row's rows are folded into per-column maxima and
    /// visible counts (one vectorisable pass per row, whatever the block width), and the
    /// blocks take the maximum of their columns once per block row — the same values as
    /// folding cell by cell, several times faster for blocks a few cells wide.
    void add_max(Index r, const float* v, const bool* allowed) {
        const int block_row = static_cast<int>(r / g_.rowFactor);
        if (block_row != pending_) {
            flush_max();
            pending_ = block_row;
        }
        const Index m = g_.regionCols;
        float* cmax = col_max_.data();
        if (!allowed) {
            ++pending_all_;
            for (Index j = 0; j < m; ++j)
                cmax[j] = std::max(cmax[j], v[j]);
            return;
        }
        std::uint32_t* seen = col_seen_.data();
        for (Index j = 0; j < m; ++j) {
            cmax[j] = allowed[j] ? std::max(cmax[j], v[j]) : cmax[j];
            seen[j] += allowed[j] ? 1u : 0u;
        }
    }

    void flush_max() {
        if (pending_ < 0) return;
        const std::size_t base = std::size_t(pending_) * std::size_t(g_.cols);
        const Index m = g_.regionCols;
        constexpr float ninf = -std::numeric_limits<float>::infinity();
        for (int c = 0; c < g_.cols; ++c) {
            const Index j0 = Index(c) * g_.colFactor;
            const Index j1 = std::min<Index>(m, j0 + g_.colFactor);
            float best = ninf;
            Index seen = pending_all_ * (j1 - j0);
            for (Index j = j0; j < j1; ++j) {
                best = std::max(best, col_max_[std::size_t(j)]);
                seen += col_seen_[std::size_t(j)];
            }
            // Masked cells never reach the column maxima: a block none of whose cells was
            // visible keeps −∞ (drawn as masked below).
            acc_[base + c] = std::max(acc_[base + c], double(best));
            visible_[base + c] += seen;
        }
        std::fill(col_max_.begin(), col_max_.end(), ninf);
        std::fill(col_seen_.begin(), col_seen_.end(), 0u);
        pending_all_ = 0;
        pending_ = -1;
    }

    Aggregation mode_;
    AggregatedGrid g_;
    std::vector<double> acc_;
    std::vector<Index> visible_;
    // The pending block row of the maximum (add_max): per column the maximum visible value and
    // the visible count of its masked rows; rows with every cell visible are only counted.
    int pending_ = -1;
    Index pending_all_ = 0;
    std::vector<float> col_max_;
    std::vector<std::uint32_t> col_seen_;
};

}  // namespace

void BlockSums::reset(Index n, Index m, int cells) {
    source_rows = n;
    source_cols = m;
    rowFactor = blockFactor(n, cells);
    colFactor = blockFactor(m, cells);
    rows = blocks_of(n, rowFactor);
    cols = blocks_of(m, colFactor);
    const std::size_t size = std::size_t(rows) * std::size_t(cols);
    max.assign(size, -std::numeric_limits<float>::infinity());
    sum.assign(size, 0.0);
    visible.assign(size, 0);
    rows_added.assign(static_cast<std::size_t>(rows), 0);
    pending_ = -1;
    pending_unmasked_ = pending_masked_ = 0;
    col_max_.assign(static_cast<std::size_t>(m), 0.f);
    col_sum_.assign(static_cast<std::size_t>(m), 0.f);
    col_visible_.assign(static_cast<std::size_t>(m), 0);
}

BlockSums::Columns BlockSums::row_columns(Index i, const bool* allowed) {
    const int block_row = static_cast<int>(i / rowFactor);
    if (block_row != pending_) {
        finish();
        pending_ = block_row;
    }
    // The columns of a block row's first row are written, not added to: never zero-filled.
    const bool fresh = pending_unmasked_ + pending_masked_ == 0;
    ++rows_added[static_cast<std::size_t>(block_row)];
    const Index m = source_cols;
    if (allowed) {
        ++pending_masked_;
        std::uint32_t* v = col_visible_.data();
        for (Index j = 0; j < m; ++j)
            v[j] += allowed[j] ? 1u : 0u;
    } else {
        ++pending_unmasked_;  // every column once: counted per block in finish()
    }
    return {col_max_.data(), col_sum_.data(), fresh};
}

void BlockSums::add_row(Index i, const float* w, const bool* allowed) {
    // Masked weights are exactly 0 and visible ones ≥ 0, so a maximum over every cell equals
    // the maximum over the visible cells whenever one is visible.
    const Columns c = row_columns(i, allowed);
    const Index m = source_cols;
    Eigen::Map<Eigen::ArrayXf> cmax(c.max, m), csum(c.sum, m);
    const Eigen::Map<const Eigen::ArrayXf> row(w, m);
    if (c.fresh) {
        cmax = row;
        csum = row;
    } else {
        cmax = cmax.max(row);
        csum += row;
    }
}

void BlockSums::finish() {
    if (pending_ < 0) return;
    const std::size_t base = std::size_t(pending_) * std::size_t(cols);
    for (int c = 0; c < cols; ++c) {
        const Index j0 = Index(c) * colFactor;
        const Index len = std::min<Index>(colFactor, source_cols - j0);
        const std::size_t k = base + std::size_t(c);
        // A block's columns summed in float (vectorised; at most a block's width of values,
        // each a sum of at most a block's height of weights ≤ 1), the blocks in double.
        const Eigen::Map<const Eigen::ArrayXf> cmax(col_max_.data() + j0, len),
            csum(col_sum_.data() + j0, len);
        const double total = double(csum.sum());
        std::uint32_t seen = pending_unmasked_ * static_cast<std::uint32_t>(len);
        const float best = std::max(max[k], cmax.maxCoeff());
        if (pending_masked_ > 0)
            for (Index j = j0; j < j0 + len; ++j)
                seen += col_visible_[std::size_t(j)];
        max[k] = best;
        sum[k] += total;
        visible[k] += seen;
    }
    if (pending_masked_ > 0) std::fill(col_visible_.begin(), col_visible_.end(), 0u);
    pending_unmasked_ = pending_masked_ = 0;
    pending_ = -1;
}

AggregatedGrid reduce_blocks(const BlockSums& s, int max_rows, int max_cols, Aggregation mode) {
    return reduce_blocks(s, 0, s.rows, 0, s.cols, max_rows, max_cols, mode);
}

AggregatedGrid reduce_blocks(const BlockSums& s, int br, int nbr, int bc, int nbc, int max_rows,
                             int max_cols, Aggregation mode) {
    AggregatedGrid g;
    const int kr = blockFactor(nbr, max_rows), kc = blockFactor(nbc, max_cols);
    g.firstRow = Index(br) * s.rowFactor;
    g.firstCol = Index(bc) * s.colFactor;
    g.regionRows = std::min<Index>(s.source_rows, Index(br + nbr) * s.rowFactor) - g.firstRow;
    g.regionCols = std::min<Index>(s.source_cols, Index(bc + nbc) * s.colFactor) - g.firstCol;
    g.rowFactor = kr * s.rowFactor;
    g.colFactor = kc * s.colFactor;
    g.rows = blocks_of(nbr, kr);
    g.cols = blocks_of(nbc, kc);
    const std::size_t cells = std::size_t(g.rows) * std::size_t(g.cols);
    g.values.assign(cells, 0.0);
    g.masked.assign(cells, 1);
    for (int r = 0; r < g.rows; ++r) {
        const Index h = std::min<Index>(g.rowFactor, g.regionRows - Index(r) * g.rowFactor);
        for (int c = 0; c < g.cols; ++c) {
            const Index w = std::min<Index>(g.colFactor, g.regionCols - Index(c) * g.colFactor);
            double best = 0, total = 0;
            std::uint64_t seen = 0, added = 0;
            for (int fr = br + r * kr; fr < br + std::min(nbr, (r + 1) * kr); ++fr) {
                added += s.rows_added.empty() ? 0 : s.rows_added[std::size_t(fr)];
                for (int fc = bc + c * kc; fc < bc + std::min(nbc, (c + 1) * kc); ++fc) {
                    const std::size_t k = std::size_t(fr) * std::size_t(s.cols) + fc;
                    if (s.visible[k] > 0) best = std::max(best, double(s.max[k]));
                    total += s.sum[k];
                    seen += s.visible[k];
                }
            }
            // Rows of a preview not computed yet are not in the mean either.
            const double rows_in =
                s.rows_added.empty() ? double(h) : double(std::max<std::uint64_t>(added, 1));
            const std::size_t k = std::size_t(r) * std::size_t(g.cols) + c;
            g.masked[k] = seen == 0 ? 1 : 0;
            g.values[k] = mode == Aggregation::Max ? best : total / (rows_in * double(w));
        }
    }
    return g;
}

AggregatedGrid aggregate_region(Index firstRow, Index rows, Index firstCol, Index cols,
                                int max_rows, int max_cols, Aggregation mode,
                                const RegionRow& row) {
    Accumulator acc(firstRow, rows, firstCol, cols, blockFactor(rows, max_rows),
                    blockFactor(cols, max_cols), mode);
    std::vector<float> w(static_cast<std::size_t>(cols));
    const std::unique_ptr<bool[]> allowed(new bool[static_cast<std::size_t>(cols)]);
    bool* flags = allowed.get();
    for (Index r = 0; r < rows; ++r) {
        const bool masked = row(firstRow + r, w.data(), flags);
        acc.add(r, w.data(), masked ? flags : nullptr);
    }
    return acc.finish();
}

AggregatedGrid aggregate(const Matrix& values, const Matrix* masked_scores, int max_rows,
                         int max_cols, Aggregation mode) {
    const Index n = values.rows(), m = values.cols();
    Accumulator acc(0, n, 0, m, blockFactor(n, max_rows), blockFactor(m, max_cols), mode);
    const std::unique_ptr<bool[]> allowed(new bool[static_cast<std::size_t>(m)]);
    bool* flags = allowed.get();
    constexpr float ninf = -std::numeric_limits<float>::infinity();
    for (Index i = 0; i < n; ++i) {
        const float* s = masked_scores ? masked_scores->data() + i * m : nullptr;
        if (s)
            for (Index j = 0; j < m; ++j)
                flags[j] = s[j] != ninf;
        acc.add(i, values.data() + i * m, s ? flags : nullptr);
    }
    return acc.finish();
}

AggregatedGrid aggregate(const Matrix& values, const BoolMatrix& visible, int max_rows,
                         int max_cols, Aggregation mode) {
    const Index n = values.rows(), m = values.cols();
    const bool use = visible.rows() == n && visible.cols() == m;
    Accumulator acc(0, n, 0, m, blockFactor(n, max_rows), blockFactor(m, max_cols), mode);
    for (Index i = 0; i < n; ++i)
        acc.add(i, values.data() + i * m, use ? visible.data() + i * m : nullptr);
    return acc.finish();
}

}  // namespace attn
