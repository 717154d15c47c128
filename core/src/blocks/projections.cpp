// AttnScope core — the projections' reverse through a FloatTensor. GPL-3.0-or-later.
#include "attn/blocks/projections.hpp"

#include <algorithm>

#include "../util/parallel.hpp"

namespace attn::blocks {

Matrix times_weight_t(const Matrix& dy, const model::FloatTensor& w) {
    Matrix out(dy.rows(), w.cols());
    // The output's columns split across the threads, each widening only its own columns of a
    // half or quantised matrix, a band of rows at a time (never the whole matrix in float32);
    // splits fall on whole blocks of 256 values (every GGUF block) when the columns allow it.
    const Index unit = w.cols() % 256 == 0 ? 256 : 1, units = w.cols() / unit;
    // One text's few rows split too: on an idle machine both threads halve a saliency's
    // backward, though each packs the same rows (on a loaded one it measured slower).
    const double cost = double(dy.rows() * w.rows() * unit);
    detail::parallel_rows(units, cost, [&](Index b, Index count) {
        const Index c0 = b * unit, nc = count * unit;
        if (w.is_float()) {
            out.middleCols(c0, nc).noalias() = dy * w.matrix().middleCols(c0, nc);
            return;
        }
        // Bands of the matrix's own size, not the thread's share: each output column then sums
        // the same bands in the same order on any number of threads (the same bits).
        const Index band = std::min(w.rows(), std::max<Index>(16, (Index(1) << 19) / w.cols()));
        for (Index r0 = 0; r0 < w.rows(); r0 += band) {
            const Index nr = std::min(band, w.rows() - r0);
            const Matrix tile = w.block(r0, c0, nr, nc);
            if (r0 == 0)
                out.middleCols(c0, nc).noalias() = dy.middleCols(r0, nr) * tile;
            else
                out.middleCols(c0, nc).noalias() += dy.middleCols(r0, nr) * tile;
        }
    });
    return out;
}

}  // namespace attn::blocks
