// AttnScope core — block overviews of a scene's heads, stored or computed from Q and K.
// GPL-3.0-or-later.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attn/attention/multihead.hpp"
#include "attn/scene/scene.hpp"
#include "attn/simd/softmax_kernel.hpp"
#include "attn/util/error.hpp"
#include "scene_detail.hpp"

namespace attn {

namespace {

constexpr Index kRegionTile = 64;

/// True when the region starts on block boundaries of the stored overview and its block factors
/// can be multiples of the stored ones: the overview then answers exactly, without recomputing.
bool aligned(const BlockSums& s, Index r0, Index nr, Index c0, Index nc, int max_rows,
             int max_cols) {
    if (s.rows == 0 || s.cols == 0) return false;
    const auto fits = [](Index first, Index len, Index n, int factor, int budget) {
        return first % factor == 0 && ((first + len) % factor == 0 || first + len == n) &&
               blockFactor(len, budget) >= factor;
    };
    return fits(r0, nr, s.source_rows, s.rowFactor, max_rows) &&
           fits(c0, nc, s.source_cols, s.colFactor, max_cols);
}

int blocks(Index first, Index len, int factor) {
    return static_cast<int>((first + len + factor - 1) / factor - first / factor);
}

}  // namespace

AggregatedGrid SceneResult::weights_blocks(Index h, Index r0, Index nr, Index c0, Index nc,
                                           int max_rows, int max_cols, Aggregation mode,
                                           Progress* progress) const {
    if (h < 0 || h >= static_cast<Index>(heads.size()))
        throw ArgumentError("Head " + std::to_string(h) + " does not exist (the scene has " +
                            std::to_string(heads.size()) + ").");
    const HeadResult& head = heads[static_cast<std::size_t>(h)];
    const Index nq = head.streamed() ? query_count() : head.weights.rows();
    const Index nk = head.streamed() ? key_count() : head.weights.cols();
    if (r0 < 0 || c0 < 0 || nr <= 0 || nc <= 0 || r0 + nr > nq || c0 + nc > nk)
        throw ArgumentError("The region of " + std::to_string(nr) + " × " + std::to_string(nc) +
                            " cells at (" + std::to_string(r0) + ", " + std::to_string(c0) +
                            ") is outside the " + detail::shape(nq, nk) + " head.");
    const auto tick = [&](Index done) {
        if ((done - r0) % kRegionTile == 0)
            report(progress, static_cast<double>(done - r0) / static_cast<double>(nr));
    };
    if (!head.streamed()) {
        constexpr float ninf = -std::numeric_limits<float>::infinity();
        const bool by_scores = head.has_stages();
        const bool by_visible = !by_scores && visible.rows() == nq && visible.cols() == nk;
        const bool masking = by_scores && head.mask.kind != MaskKind::None;
        Eigen::RowVectorXf masked(nc);  // one row of the region's derived masked scores
        return aggregate_region(
            r0, nr, c0, nc, max_rows, max_cols, mode, [&](Index i, float* w, bool* allowed) {
                tick(i);
                const float* src = head.weights.data() + i * nk + c0;
                std::copy(src, src + nc, w);
                if (by_scores) {
                    // The region's keys only, through the stages the
                    // softmax saw: −∞ where hidden.
                    const BoolMatrix a =
                        masking ? build_mask_block(head.mask, nq, nk, i, 1, c0, nc) : BoolMatrix();
                    score_stages(head, head.raw.data() + i * nk + c0, i, c0, nc,
                                 masking ? a.data() : nullptr, StageRow{.masked = masked.data()});
                    unsigned hidden = 0;  // no branch: vectorised
                    for (Index c = 0; c < nc; ++c) {
                        const bool on = masked[c] != ninf;
                        allowed[c] = on;
                        hidden |= on ? 0u : 1u;
                    }
                    // A maximum over every cell needs no flags (the mean
                    // keeps its per-cell summation: flags given).
                    return hidden != 0 || mode != Aggregation::Max;
                }
                if (by_visible) {
                    const bool* v = visible.data() + i * nk + c0;
                    std::copy(v, v + nc, allowed);
                }
                return by_visible;
            });
    }
    const BlockSums& s = head.overview;
    if (aligned(s, r0, nr, c0, nc, max_rows, max_cols))
        return reduce_blocks(s, static_cast<int>(r0 / s.rowFactor), blocks(r0, nr, s.rowFactor),
                             static_cast<int>(c0 / s.colFactor), blocks(c0, nc, s.colFactor),
                             max_rows, max_cols, mode);
    if (source) {
        // A long loaded file: each query's row read from the file and weighed as weights_row.
        const bool masking = has_scores && mask.kind != MaskKind::None;
        return aggregate_region(
            r0, nr, c0, nc, max_rows, max_cols, mode, [&](Index i, float* w, bool* allowed) {
                tick(i);
                const Eigen::RowVectorXf row = weights_row(h, i);
                std::copy(row.data() + c0, row.data() + c0 + nc, w);
                if (!masking) return false;
                const BoolMatrix a = build_mask_block(mask, nq, nk, i, 1, c0, nc);
                std::copy(a.data(), a.data() + nc, allowed);
                return true;
            });
    }
    if (!has_vectors || head_scores.size() != heads.size() || d_k <= 0)
        throw ArgumentError("The weights of this scene were not kept and cannot be recomputed.");
    // Exact region: the region's scores only (nr × nc · d_k multiply-adds), weighed with each
    // query's stored normalisers: the same operations as the tiled pass, without the other keys.
    const Index g = kv_head_of(h, static_cast<Index>(heads.size()), kv_heads);
    const detail::ConstRef Kh = K.block(c0, g * d_k, nc, d_k);
    const ScoreParams& score = head_scores[static_cast<std::size_t>(h)];
    const bool masking = mask.kind != MaskKind::None;
    Matrix tile;
    BoolMatrix allowed_tile;
    Index first = -1, len = 0;
    return aggregate_region(
        r0, nr, c0, nc, max_rows, max_cols, mode, [&](Index i, float* w, bool* allowed) {
            if (i >= first + len) {
                tick(i);
                first = i;
                len = std::min(kRegionTile, r0 + nr - i);
                detail::scores_into(Q.block(i, h * d_k, len, d_k), Kh, score, tile);
                if (masking) allowed_tile = build_mask_block(mask, nq, nk, i, len, c0, nc);
            }
            const Index r = i - first;
            Eigen::Map<Eigen::ArrayXf> out(w, nc);
            const auto k = static_cast<std::size_t>(i);
            const float m = head.row_max[k], inv = head.row_inv_sum[k];
            if (head.empty_rows[k]) {
                out.setZero();
            } else if (std::isfinite(m) && std::isfinite(inv)) {
                score_stages(head, tile.row(r).data(), i, c0, nc,
                             masking ? allowed_tile.row(r).data() : nullptr, StageRow{.masked = w});
                simd::exp_scale(w, w, nc, m, inv);  // the softmax's own exp and product
            } else {
                out = weights_row(h, i).segment(c0, nc).array().transpose();
            }
            if (!masking) return false;
            for (Index c = 0; c < nc; ++c) {
                allowed[c] = allowed_tile(r, c);
                if (!allowed[c]) w[c] = 0.f;
            }
            return true;
        });
}

}  // namespace attn

namespace attn {

AggregatedGrid SceneResult::drawn_blocks(Index h, Index r0, Index nr, Index c0, Index nc,
                                         int max_rows, int max_cols, Aggregation mode) const {
    const bool streamed_head = h >= 0 && h < static_cast<Index>(heads.size()) &&
                               heads[static_cast<std::size_t>(h)].streamed();
    if (streamed_head && r0 >= 0 && c0 >= 0 && nr > 0 && nc > 0 && r0 + nr <= query_count() &&
        c0 + nc <= key_count()) {
        const BlockSums& s = heads[static_cast<std::size_t>(h)].overview;
        if (s.rows > 0 && s.cols > 0 && blockFactor(nr, max_rows) >= s.rowFactor &&
            blockFactor(nc, max_cols) >= s.colFactor) {
            const auto br = static_cast<int>(r0 / s.rowFactor);
            const auto bc = static_cast<int>(c0 / s.colFactor);
            return reduce_blocks(s, br, blocks(r0, nr, s.rowFactor), bc,
                                 blocks(c0, nc, s.colFactor), max_rows, max_cols, mode);
        }
    }
    return weights_blocks(h, r0, nr, c0, nc, max_rows, max_cols, mode);
}

void SceneResult::stage_rows(int stage, Index h, Index first, Index count, Matrix& out) const {
    if (h < 0 || h >= static_cast<Index>(heads.size()) || stage < 0 || stage > 5)
        throw ArgumentError("Stage " + std::to_string(stage) + " of head " + std::to_string(h) +
                            " does not exist.");
    const HeadResult& head = heads[static_cast<std::size_t>(h)];
    // The score stages are derived from raw (HeadResult keeps no copy of them).
    const Matrix* stored[] = {&head.raw, &head.raw,     &head.raw,
                              &head.raw, &head.weights, &head.output};
    const Matrix& m = *stored[stage];
    if (m.rows() >= first + count && first >= 0 && count >= 0 && m.size() != 0) {
        if (stage == 1 || stage == 2) {
            out.resize(count, m.cols());
            for (Index r = 0; r < count; ++r) {
                out.row(r) =
                    stage == 1 ? head.scaled_row(first + r) : head.softcapped_row(first + r);
            }
        } else if (stage == 3) {
            head.masked_rows(first, count, out);
        } else {
            out = m.middleRows(first, count);
        }
        return;
    }
    if (first < 0 || count < 0 || first + count > query_count())
        throw ArgumentError("Rows " + std::to_string(first) + ".." + std::to_string(first + count) +
                            " are outside the " + std::to_string(query_count()) + " queries.");
    // Recomputed one query at a time with the accessors the views use: the same numbers.
    for (Index r = 0; r < count; ++r) {
        const Index i = first + r;
        Eigen::RowVectorXf row;
        switch (stage) {
            case 0:
                row = raw_row(h, i);
                break;
            case 1:
                row = scaled_row(h, i);
                break;
            case 2:
                row = softcapped_row(h, i);
                break;
            case 3:
                row = masked_row(h, i);
                break;
            case 4:
                row = weights_row(h, i);
                break;
            default:
                row = output_row(h, i);
                break;
        }
        if (r == 0) out.resize(count, row.size());
        out.row(r) = row;
    }
}

}  // namespace attn
