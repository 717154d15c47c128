// AttnScope core — tiled, online-softmax attention. GPL-3.0-or-later.
#include "attn/lenses/tiled.hpp"

#include <algorithm>
#include <cmath>

#include "attn/util/error.hpp"

namespace attn::lenses {

std::uint64_t dense_peak_bytes(Index nq, Index nk, Index bytes_per_value) {
    return std::uint64_t(nq) * std::uint64_t(nk) * std::uint64_t(bytes_per_value);
}

std::uint64_t tiled_peak_bytes(const TiledConfig& c, Index d_v) {
    return (std::uint64_t(c.block_q) * std::uint64_t(c.block_k) +
            std::uint64_t(c.block_q) * std::uint64_t(2 + d_v)) *
           std::uint64_t(c.bytes_per_value);
}

TiledResult tiled_attention(const MatrixD& Q, const MatrixD& K, const MatrixD& V,
                            const BoolMatrix* mask, bool scale, const TiledConfig& config) {
    if (config.block_q < 1 || config.block_k < 1 || config.bytes_per_value < 1)
        throw ArgumentError("tiled_attention: block sizes and bytes per value must be ≥ 1.");
    if (Q.cols() != K.cols() || K.rows() != V.rows())
        throw ShapeError("tiled_attention: Q, K, V shapes do not fit.");
    const Index nq = Q.rows(), nk = K.rows(), dv = V.cols();
    if (mask && (mask->rows() != nq || mask->cols() != nk))
        throw ShapeError("tiled_attention: the mask is not nq × nk.");
    const double c = scale && Q.cols() > 0 ? 1.0 / std::sqrt(static_cast<double>(Q.cols())) : 1.0;
    TiledResult r;
    r.output = MatrixD::Zero(nq, dv);
    r.empty_rows.assign(static_cast<std::size_t>(nq), 0);
    r.peak_bytes = tiled_peak_bytes(config, dv);
    for (Index q0 = 0; q0 < nq; q0 += config.block_q) {
        const Index bq = std::min(config.block_q, nq - q0);
        // Running statistics of the block's queries: they are all the tiled way keeps.
        VectorD m = VectorD::Constant(bq, -INFINITY), l = VectorD::Zero(bq);
        MatrixD acc = MatrixD::Zero(bq, dv);
        for (Index k0 = 0; k0 < nk; k0 += config.block_k) {
            const Index bk = std::min(config.block_k, nk - k0);
            MatrixD S = (Q.middleRows(q0, bq) * K.middleRows(k0, bk).transpose()) * c;
            for (Index i = 0; i < bq; ++i) {
                double tile_max = -INFINITY;
                for (Index j = 0; j < bk; ++j) {
                    if (mask && !(*mask)(q0 + i, k0 + j)) S(i, j) = -INFINITY;
                    tile_max = std::max(tile_max, S(i, j));
                }
                const double m_new = std::max(m(i), tile_max);
                if (m_new == -INFINITY) continue;  // nothing visible yet in this row
                // Rescale what was accumulated under the old max (exp(−inf) = 0 the first time).
                const double correction = std::exp(m(i) - m_new);
                l(i) *= correction;
                acc.row(i) *= correction;
                for (Index j = 0; j < bk; ++j) {
                    if (S(i, j) == -INFINITY) continue;
                    const double p = std::exp(S(i, j) - m_new);
                    l(i) += p;
                    acc.row(i) += p * V.row(k0 + j);
                }
                m(i) = m_new;
            }
        }
        for (Index i = 0; i < bq; ++i) {
            if (l(i) > 0)
                r.output.row(q0 + i) = acc.row(i) / l(i);
            else
                r.empty_rows[static_cast<std::size_t>(q0 + i)] = 1;
        }
    }
    return r;
}

}  // namespace attn::lenses
