// AttnScope core — the projections' reverse through a FloatTensor. GPL-3.0-or-later.
#include "attn/blocks/projections.hpp"

#include <algorithm>

namespace attn::blocks {

Matrix times_weight_t(const Matrix& dy, const model::FloatTensor& w) {
    if (w.is_float()) return dy * w.matrix();
    // Bands of rows widened one at a time: never the whole matrix in float32.
    constexpr Index band = 256;
    Matrix out = Matrix::Zero(dy.rows(), w.cols());
    for (Index r0 = 0; r0 < w.rows(); r0 += band) {
        const Index nr = std::min(band, w.rows() - r0);
        out.noalias() += dy.middleCols(r0, nr) * w.block(r0, 0, nr, w.cols());
    }
    return out;
}

}  // namespace attn::blocks
