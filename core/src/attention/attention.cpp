// AttnScope core — single-head attention with every stage kept. GPL-3.0-or-later.
#include "attn/attention/attention.hpp"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "attn/attention/softmax.hpp"
#include "attn/attention/stats.hpp"
#include "attn/util/error.hpp"
#include "attn/util/stage_counters.hpp"
#include "detail.hpp"

namespace attn {

ScoreStages head_score_stages(float d_k, const AttentionParams& params) {
    const float tau = params.temperature;
    if (!(tau >= 0.f) || !std::isfinite(tau))
        throw ArgumentError("Temperature must be a finite number >= 0 (got " + std::to_string(tau) +
                            "); 0 means the hard argmax limit.");
    if (!(params.softcap >= 0.f) || !std::isfinite(params.softcap))
        throw ArgumentError("The soft-cap must be a finite number >= 0 (got " +
                            std::to_string(params.softcap) + "); 0 means none.");
    const bool scaled = params.scale && score_is_scalable(params.score.kind);
    if (scaled && params.scale_factor) {
        if (!(*params.scale_factor > 0.f) || !std::isfinite(*params.scale_factor))
            throw ArgumentError("The scale factor must be a positive number (got " +
                                std::to_string(*params.scale_factor) + ").");
    } else if (scaled && !(d_k > 0.f && std::isfinite(d_k))) {
        throw ArgumentError("Scaling needs a positive d_k (got " + std::to_string(d_k) + ").");
    }
    ScoreStages st;
    st.scale_factor = !scaled               ? 1.f
                      : params.scale_factor ? *params.scale_factor
                                            : 1.f / std::sqrt(d_k);
    st.softcap = params.softcap;
    st.bias = params.bias;
    st.bias_head = params.bias_head;
    const bool hard = tau <= kHardTemperature;
    st.hard = hard;
    // In the hard limit τ only picks the argmax, which the scale cannot change: do not divide.
    // Without a stage after the scale, τ folds into its multiply; with one, it divides after.
    const float inv_tau = hard ? 1.f : 1.f / tau;
    st.multiplier = hard || st.shaped() ? st.scale_factor : st.scale_factor / tau;
    st.tempering = st.shaped() ? inv_tau : 1.f;
    return st;
}

namespace detail {

bool set_stages(float d_k, const AttentionParams& params, HeadResult& out) {
    static_cast<ScoreStages&>(out) = head_score_stages(d_k, params);
    return out.hard;
}

namespace {

// Queries per tile of the compact pass: a 64 × 4096 float tile is 1 MiB, about L2; larger
// tiles repack K less often.
constexpr Index kTileRows = 64;
// The tiled passes take at least kTileRows queries and up to this many cells a tile (512 KiB
// of scores): at n = 512 four times fewer tiles, each repacking the head's K (and V).
constexpr Index kTileCells = Index{1} << 17;

/// Buffers of one thread's tiled passes, kept between heads and calls: a fresh tile, K or V per
/// head was page-faulted and zero-filled each time (a tenth of a call at n = 512).
struct TileScratch {
    Matrix tile;           ///< a tile's scores (weights-only pass)
    Matrix keys, values;   ///< the head's K and V, contiguous
    Eigen::RowVectorXf z;  ///< one row's scaled and masked scores (kept pass)
    BoolMatrix mask;
};

TileScratch& tile_scratch() {
    thread_local TileScratch s;
    return s;
}

/// dst = src, reusing dst's memory when the shape is unchanged.
void copy_into(Matrix& dst, const ConstRef& src) {
    if (dst.rows() != src.rows() || dst.cols() != src.cols()) dst.resize(src.rows(), src.cols());
    dst = src;
}

/// Queries per tile of a head with nk keys.
Index tile_rows_for(Index nk) {
    return std::max(kTileRows, kTileCells / std::max<Index>(nk, 1));
}

/// Weights and (optionally) statistics tile by tile, without keeping the score stages: memory
/// O(tile · nk) besides the weights, and each tile's scores are still in cache when they are
/// scaled, masked, normalised and summarised, and its weights when they multiply V
/// (keep_output). Streamed (overview_cells > 0), not even the weights are kept
/// (attend_streamed).
void attend_tiled(const ConstRef& Q, const ConstRef& K, const ConstRef& V, float d_k,
                  const AttentionParams& params, HeadResult& out, HeadStats* stats) {
    set_stages(d_k, params, out);
    stage_counters().score_heads.fetch_add(1, std::memory_order_relaxed);
    stage_counters().softmax_heads.fetch_add(1, std::memory_order_relaxed);
    const Index nq = Q.rows(), nk = K.rows();
    const bool masking = params.mask.kind != MaskKind::None;
    out.raw.resize(0, 0);
    out.raw_version = 0;
    out.mask = params.mask;
    const bool outputs = params.keep_output && params.overview_cells <= 0;
    out.output.resize(outputs ? nq : 0, V.cols());
    if (params.overview_cells > 0) {
        attend_streamed(Q, K, params, out, stats);
        return;
    }
    resize_large(out.weights, nq, nk);
    out.empty_rows.assign(static_cast<std::size_t>(nq), 0);
    out.row_max.clear();
    out.row_inv_sum.clear();
    out.overview = BlockSums{};
    std::vector<RowStats> rows(stats ? static_cast<std::size_t>(nq) : 0);
    // Each tile goes through the same scores_into as the full path (general: its Q·W; additive:
    // K·U_a again per tile, small next to its n · d_k tanh), so the numbers are the same.
    // A head's K and V are column slices of the layer's: every tile's GEMM would repack them
    // from rows d_model floats apart (measured: 18 % of a pass at n = 2048); contiguous copies
    // made once stay in L2 between tiles.
    TileScratch& s = tile_scratch();
    copy_into(s.keys, K);
    if (outputs) copy_into(s.values, V);
    const Index tile_rows = std::min(tile_rows_for(nk), nq);
    if (s.tile.rows() != tile_rows || s.tile.cols() != nk) s.tile.resize(tile_rows, nk);
    for (Index b = 0; b < nq; b += tile_rows) {
        const Index len = std::min(tile_rows, nq - b);
        scores_into(Q.middleRows(b, len), s.keys, params.score, s.tile.topRows(len));
        if (masking) s.mask = build_mask_rows(params.mask, nq, nk, b, len);
        for (Index r = 0; r < len; ++r) {
            const Index i = b + r;
            double lse = 0;
            float* w = out.weights.row(i).data();
            const bool empty =
                weigh_row(s.tile.row(r), masking ? &s.mask : nullptr, r, out, w, i, &lse);
            out.empty_rows[static_cast<std::size_t>(i)] = empty ? 1 : 0;
            if (stats)
                rows[static_cast<std::size_t>(i)] =
                    row_stats_softmax(out.weights.row(i), s.tile.row(r), i, lse);
        }
        if (outputs)
            out.output.middleRows(b, len).noalias() = out.weights.middleRows(b, len) * s.values;
    }
    if (stats) *stats = summarize_rows(std::move(rows));
}

}  // namespace

namespace {

/// weigh_row with the row's statistics: for a row whose maximum and sum are finite, the
/// softmax's last step (w = e · 1/Σ e) and the statistics are one pass (softmax_row_stats), the
/// entropy taken as L − Σ α z like row_stats_softmax; the weights are softmax_row's to the bit.
/// Other rows (hard, empty, +∞ or NaN scores) take softmax_row or hardmax_row, then
/// row_stats_softmax.
bool weigh_row_stats(Eigen::RowVectorXf& z, const BoolMatrix* mask, Index mask_row,
                     const ScoreStages& st, float* w, Index i, RowStats& stats) {
    const Index nk = z.size();
    const bool hard = st.hard;
    scale_and_mask(z, mask, mask_row, st, i);
    double lse = std::numeric_limits<double>::quiet_NaN();
    bool empty = false;
    if (hard) {
        empty = hardmax_row(z.data(), w, nk, i);
    } else {
        const float m = simd::row_max(z.data(), nk);  // −∞ for an empty row
        const double sum = std::isfinite(m) ? simd::exp_sum(z.data(), w, nk, m) : 0.0;
        if (std::isfinite(m) && std::isfinite(sum)) {
            stats = softmax_row_stats(w, z.data(), nk, i, static_cast<float>(1.0 / sum),
                                      static_cast<double>(m) + std::log(sum), nullptr, nullptr,
                                      false, w);
            return false;
        }
        empty = softmax_row(z.data(), w, nk, i, &lse);  // throws on NaN
    }
    stats = row_stats_softmax(Eigen::Map<const Eigen::RowVectorXf>(w, nk), z, i, lse);
    return empty;
}

/// A new HeadResult::raw_version, never given before in this process.
std::uint64_t next_raw_version() {
    static std::atomic<std::uint64_t> last{0};
    return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

/// The softmax pass of a head that keeps its raw scores, a tile of query rows at a time: with Q
/// and K, each tile's raw scores are computed into out.raw and weighed while still in cache (one
/// n × n write, none read back); with raw_from, they are copied from it as they are read (or
/// not at all when out holds them already); otherwise they are read from out.raw. The scaled and
/// masked scores are not kept (HeadResult derives them): one row of them lives in a buffer while
/// its softmax and statistics are taken. Every way makes the same calls, so the same numbers.

void kept_pass(float d_k, const AttentionParams& params, HeadResult& out, HeadStats* stats,
               const ConstRef* Q, const ConstRef* K, const HeadResult* raw_from = nullptr) {
    set_stages(d_k, params, out);
    stage_counters().softmax_heads.fetch_add(1, std::memory_order_relaxed);
    // Raw scores from another result: none copied when out (a recycled head) holds the same
    // computation's already, otherwise copied row by row as they are read (one pass).
    const Matrix* copy_from = nullptr;
    std::uint64_t version = 0;  // without Q or another result: scores set by the caller
    if (raw_from) {
        const Matrix& from = raw_from->raw;
        if (raw_from->raw_version == 0 || out.raw_version != raw_from->raw_version ||
            out.raw.rows() != from.rows() || out.raw.cols() != from.cols()) {
            resize_large(out.raw, from.rows(), from.cols());
            copy_from = &from;
        }
        version = raw_from->raw_version;
    } else if (Q) {
        version = next_raw_version();
    }
    // Set once raw is whole: a pass that stops half-way (an exception) leaves no version.
    out.raw_version = 0;
    const Index nq = out.raw.rows(), nk = out.raw.cols();
    out.mask = params.mask;
    const bool masking = params.mask.kind != MaskKind::None;
    resize_large(out.weights, nq, nk);
    out.empty_rows.assign(static_cast<std::size_t>(nq), 0);
    std::vector<RowStats> rows(stats ? static_cast<std::size_t>(nq) : 0);
    TileScratch& s = tile_scratch();
    if (Q) copy_into(s.keys, *K);  // contiguous: each tile's GEMM repacks it
    s.z.resize(nk);
    const Index tile_rows = tile_rows_for(nk);
    for (Index b = 0; b < nq; b += tile_rows) {
        const Index len = std::min(tile_rows, nq - b);
        if (Q) scores_into(Q->middleRows(b, len), s.keys, params.score, out.raw.middleRows(b, len));
        if (masking) s.mask = build_mask_rows(params.mask, nq, nk, b, len);
        for (Index r = 0; r < len; ++r) {
            const Index i = b + r;
            if (copy_from) {
                s.z = copy_from->row(i);
                out.raw.row(i) = s.z;
            } else {
                s.z = out.raw.row(i);
            }
            const BoolMatrix* mask = masking ? &s.mask : nullptr;
            float* w = out.weights.row(i).data();
            const bool empty =
                stats ? weigh_row_stats(s.z, mask, r, out, w, i, rows[static_cast<std::size_t>(i)])
                      : weigh_row(s.z, mask, r, out, w, i);
            out.empty_rows[static_cast<std::size_t>(i)] = empty ? 1 : 0;
        }
    }
    out.raw_version = version;
    if (stats) *stats = summarize_rows(std::move(rows));
}

}  // namespace

void finish_scores(float d_k, const AttentionParams& params, HeadResult& out, HeadStats* stats,
                   const HeadResult* raw) {
    kept_pass(d_k, params, out, stats, nullptr, nullptr, raw);
}

void attend_into(const ConstRef& Q, const ConstRef& K, const ConstRef& V,
                 const AttentionParams& params, HeadResult& out, HeadStats* stats,
                 bool finite_known) {
    check_score_inputs(Q, K, params.score, finite_known);
    if (V.rows() != K.rows())
        throw ShapeError("V must have one row per key: K is " + shape(K.rows(), K.cols()) +
                         ", V is " + shape(V.rows(), V.cols()) + ".");
    if (V.cols() == 0) throw ArgumentError("V has zero width (" + shape(V.rows(), V.cols()) + ").");
    if (!finite_known) require_finite(V, "V");
    const float d_k = params.scale_dk.value_or(static_cast<float>(Q.cols()));
    if (!params.keep_stages) {
        attend_tiled(Q, K, V, d_k, params, out, stats);
        return;
    }
    stage_counters().score_heads.fetch_add(1, std::memory_order_relaxed);
    resize_large(out.raw, Q.rows(), K.rows());
    kept_pass(d_k, params, out, stats, &Q, &K);
    if (!params.stage_outputs) {
        out.output.resize(0, 0);  // derived on demand (SceneResult::output_row)
        return;
    }
    out.output.resize(Q.rows(), V.cols());
    out.output.noalias() = out.weights * V;
}

}  // namespace detail

HeadResult attend(const Matrix& Q, const Matrix& K, const Matrix& V,
                  const AttentionParams& params) {
    HeadResult out;
    detail::attend_into(Q, K, V, params, out);
    return out;
}

HeadResult attend_scores(const Matrix& raw, float d_k, const AttentionParams& params,
                         const Matrix* V) {
    if (raw.rows() == 0 || raw.cols() == 0)
        throw ArgumentError("Empty score matrix (" + detail::shape(raw.rows(), raw.cols()) +
                            "); attention needs at least one query and one key.");
    for (Index i = 0; i < raw.rows(); ++i)
        for (Index j = 0; j < raw.cols(); ++j)
            if (std::isnan(raw(i, j)))
                throw NonFiniteError("Raw scores contain NaN at row " + std::to_string(i) +
                                     ", column " + std::to_string(j) + ".");
    if (V) {
        if (V->rows() != raw.cols())
            throw ShapeError("V must have one row per key: the scores have " +
                             std::to_string(raw.cols()) + " keys, V is " +
                             detail::shape(V->rows(), V->cols()) + ".");
        detail::require_finite(*V, "V");
    }
    HeadResult out;
    out.raw = raw;
    detail::finish_scores(d_k, params, out);
    if (V) out.output = out.weights * *V;
    return out;
}

}  // namespace attn
