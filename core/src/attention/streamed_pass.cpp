// AttnScope core — the streamed pass of a long head: scores, softmax, statistics and block sums
// per query row while the row is in cache; nothing n × n is kept. GPL-3.0-or-later.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "attn/attention/stats.hpp"
#include "attn/simd/dot_kernel.hpp"
#include "attn/simd/softmax_kernel.hpp"
#include "attn/util/error.hpp"
#include "detail.hpp"

namespace attn::detail {

namespace {

// Queries per tile of the dot kernel: one accumulator register each, and 8 rows of 32k scores
// (1 MiB) stay in L2 between the kernel and the row passes.
constexpr int kKernelRows = 8;
// Queries per tile of the other score kinds (scores_into packs K once per tile).
constexpr Index kPackedTileRows = 64;

/// Buffers of one thread's streamed heads, kept between tiles and heads (no allocation, page
/// fault or zero-fill per tile).
struct StreamScratch {
    Matrix keys;                ///< the head's keys packed for dot_rows, once per head
    Index lanes = 0;            ///< keys per packed block (simd::dot_lanes() when packed)
    Matrix queries;             ///< a tile's queries (a preview's sampled rows), contiguous
    Matrix projected;           ///< a general score's Q·W of the tile
    Matrix scores;              ///< a tile's scores, then scaled and masked in place
    Eigen::VectorXf e;          ///< one row's exp(z − max)
    std::vector<float> maxima;  ///< the kernel's row maxima of a tile
    BoolMatrix mask;
};

StreamScratch& stream_scratch() {
    thread_local StreamScratch s;
    return s;
}

/// One query's row of a streamed head: z its scores (scaled and masked here), allowed its keys
/// (null: all). The fast path fuses normalising, statistics and block sums; rows it cannot settle
/// (the hard limit, ±inf, NaN, no visible key) take the generic softmax.
struct RowPass {
    HeadResult& out;
    std::vector<RowStats>* rows;
    float* e;
    Index nk;
    bool exact;  ///< not a preview: the normalisers are stored

    /// scaled: z is scaled already and top is its maximum (the kernel's).
    void operator()(Index i, float* z, const bool* allowed, bool scaled, float top) const {
        constexpr float ninf = -std::numeric_limits<float>::infinity();
        score_stages(out, z, i, 0, nk, allowed, StageRow{.masked = z},
                     scaled ? ScoreStage::Scaled : ScoreStage::Raw);
        const auto k = static_cast<std::size_t>(i);
        // The kernel's maximum is the masked row's when nothing follows the scale.
        const bool top_holds = scaled && !allowed && !out.shaped();
        const float m = out.hard ? ninf : top_holds ? top : simd::row_max(z, nk);
        const double sum = std::isfinite(m) ? exp_row(z, e, nk, m) : 0.0;
        if (std::isfinite(m) && std::isfinite(sum)) {
            const auto inv = static_cast<float>(1.0 / sum);
            const BlockSums::Columns c = out.overview.row_columns(i, allowed);
            const RowStats s = softmax_row_stats(
                e, z, nk, i, inv, static_cast<double>(m) + std::log(sum), c.max, c.sum, c.fresh);
            if (rows) (*rows)[k] = s;
            out.empty_rows[k] = 0;
            if (exact) out.row_max[k] = m, out.row_inv_sum[k] = inv;
            return;
        }
        double lse = 0;
        RowNorm norm;
        const bool empty =
            out.hard ? hardmax_row(z, e, nk, i) : softmax_row(z, e, nk, i, &lse, &norm);
        if (out.hard) lse = std::numeric_limits<double>::quiet_NaN();
        out.empty_rows[k] = empty ? 1 : 0;
        const Eigen::Map<const Eigen::RowVectorXf> w(e, nk), zs(z, nk);
        if (rows) (*rows)[k] = row_stats_softmax(w, zs, i, lse);
        if (exact) out.row_max[k] = norm.max, out.row_inv_sum[k] = norm.inv_sum;
        out.overview.add_row(i, e, allowed);
    }
};

}  // namespace

void attend_streamed(const ConstRef& Q, const ConstRef& K, const AttentionParams& params,
                     HeadResult& out, HeadStats* stats) {
    const Index nq = Q.rows(), nk = K.rows(), width = K.cols();
    const bool masking = params.mask.kind != MaskKind::None;
    // A preview samples every stride-th query; the exact pass takes them all.
    const Index stride = std::max<Index>(1, params.query_stride);
    const ScoreKind kind = params.score.kind;
    const bool kernel = kind == ScoreKind::Dot || kind == ScoreKind::General;
    const Index tile_rows = kernel ? kKernelRows : kPackedTileRows;
    out.weights.resize(0, 0);
    out.empty_rows.assign(static_cast<std::size_t>(nq), 0);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // A preview's norms stay NaN: its rows are recomputed whole when asked for.
    out.row_max.assign(static_cast<std::size_t>(nq), nan);
    out.row_inv_sum.assign(static_cast<std::size_t>(nq), nan);
    out.overview.reset(nq, nk, params.overview_cells);
    std::vector<RowStats> rows(stats ? static_cast<std::size_t>(nq) : 0);
    if (stats && stride > 1)
        for (RowStats& rs : rows)
            rs.empty = true;  // not computed: left out of the averages
    StreamScratch& s = stream_scratch();
    if (kernel) {
        s.lanes = simd::dot_lanes();
        pack_keys(K, s.lanes, s.keys);
    }
    s.e.resize(nk);
    const RowPass row{out, stats ? &rows : nullptr, s.e.data(), nk, stride == 1};
    for (Index b = 0; b < nq; b += tile_rows * stride) {
        if (params.stop && params.stop->cancelled()) throw Cancelled();
        const Index len = std::min(tile_rows, (nq - b + stride - 1) / stride);
        s.scores.resize(len, nk);
        if (kernel || stride > 1) {
            s.queries.resize(len, Q.cols());
            for (Index r = 0; r < len; ++r)
                s.queries.row(r) = Q.row(b + r * stride);
        }
        if (kernel) {
            const Matrix* q = &s.queries;
            if (kind == ScoreKind::General) {
                s.projected.resize(len, width);
                s.projected.noalias() = s.queries * params.score.W;
                q = &s.projected;
            }
            s.maxima.resize(static_cast<std::size_t>(len));
            Index r = 0;
            for (; r + kKernelRows <= len; r += kKernelRows)
                simd::dot_rows(kKernelRows, s.lanes, q->row(r).data(), width, s.keys.data(),
                               s.keys.cols(), nk, out.multiplier, s.scores.row(r).data(),
                               s.maxima.data() + r);
            if (r < len)
                simd::dot_rows(int(len - r), s.lanes, q->row(r).data(), width, s.keys.data(),
                               s.keys.cols(), nk, out.multiplier, s.scores.row(r).data(),
                               s.maxima.data() + r);
        } else if (stride == 1) {
            scores_into(Q.middleRows(b, len), K, params.score, s.scores);
        } else {
            scores_into(s.queries, K, params.score, s.scores);
        }
        if (masking) {
            if (stride == 1) {
                s.mask = build_mask_rows(params.mask, nq, nk, b, len);
            } else {
                s.mask.resize(len, nk);
                for (Index r = 0; r < len; ++r)
                    s.mask.row(r) = build_mask_rows(params.mask, nq, nk, b + r * stride, 1);
            }
        }
        for (Index r = 0; r < len; ++r)
            row(b + r * stride, s.scores.row(r).data(), masking ? s.mask.row(r).data() : nullptr,
                kernel, kernel ? s.maxima[static_cast<std::size_t>(r)] : 0.f);
    }
    out.overview.finish();
    if (stats) *stats = summarize_rows(std::move(rows));
}

}  // namespace attn::detail
