// AttnScope core — the streamed scene of a long loaded file: each row read from the file's map,
// the controls applied as for matrices in memory, into the block overview and per-row
// statistics; nothing n × n is held. GPL-3.0-or-later.
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "attn/attention/stats.hpp"
#include "attn/util/error.hpp"
#include "scene_detail.hpp"

namespace attn::detail {

namespace {

/// Throws naming the place of the first NaN (scores) or NaN/±inf (weights) of a row.
void check_row(const float* row, Index nk, Index h, Index i, bool scores,
               const std::string& source) {
    for (Index j = 0; j < nk; ++j)
        if (std::isnan(row[j]) || (!scores && std::isinf(row[j])))
            throw NonFiniteError(std::string(scores ? "Raw scores" : "Attention weights") +
                                 " of head " + std::to_string(h) + " in \"" + source + "\" are " +
                                 (std::isnan(row[j]) ? "NaN" : "infinite") + " at row " +
                                 std::to_string(i) + ", column " + std::to_string(j) + ".");
}

}  // namespace

void compute_loaded_rows(const AttentionComponent& comp, const std::string& source,
                         const AttentionParams& params, float d_k, Index layer, Progress* progress,
                         SceneResult& r) {
    const auto nq = static_cast<Index>(comp.q_tokens.size());
    const auto nk = static_cast<Index>(comp.k_tokens.size());
    const bool scores = comp.are_scores;
    const bool masking = scores && params.mask.kind != MaskKind::None;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    Eigen::RowVectorXf z(nk), w(nk);
    const Eigen::RowVectorXf none(0);
    BoolMatrix mask;
    constexpr Index kTile = 64;
    for (Index h = 0; h < comp.heads; ++h) {
        HeadResult head;
        if (scores) {
            set_stages(d_k, params, head);
            head.mask = params.mask;
        }
        // No normalisers are kept: a row or region is recomputed from the file's row.
        head.row_max.assign(static_cast<std::size_t>(nq), nan);
        head.row_inv_sum.assign(static_cast<std::size_t>(nq), nan);
        head.empty_rows.assign(static_cast<std::size_t>(nq), 0);
        head.overview.reset(nq, nk, kOverviewCells);
        std::vector<RowStats> rows(static_cast<std::size_t>(nq));
        for (Index b = 0; b < nq; b += kTile) {
            if (progress && progress->cancelled()) throw Cancelled();
            const Index len = std::min(kTile, nq - b);
            if (masking) mask = build_mask_rows(params.mask, nq, nk, b, len);
            for (Index t = 0; t < len; ++t) {
                const Index i = b + t;
                const auto k = static_cast<std::size_t>(i);
                comp.rows->read_row(layer, h, i, scores ? z.data() : w.data());
                check_row(scores ? z.data() : w.data(), nk, h, i, scores, source);
                if (scores) {
                    // The same steps as finish_scores on a matrix in memory.
                    const bool empty =
                        weigh_row(z, masking ? &mask : nullptr, t, head, w.data(), i);
                    head.empty_rows[k] = empty ? 1 : 0;
                    rows[k] = row_stats(w, z, i);
                } else {
                    head.empty_rows[k] = w.sum() > 0.f ? 0 : 1;
                    rows[k] = row_stats(w, none, i);
                }
                head.overview.add_row(i, w.data(), masking ? mask.row(t).data() : nullptr);
            }
            comp.rows->release(layer, h, b, len);  // resident memory: one tile of the file
            report(progress, (static_cast<double>(h) + static_cast<double>(b + len) / double(nq)) /
                                 static_cast<double>(comp.heads));
        }
        head.overview.finish();
        r.stats.push_back(summarize_rows(std::move(rows)));
        r.heads.push_back(std::move(head));
    }
    r.source = comp.rows;
    r.storage = Storage::Streamed;
    if (scores) r.mask = params.mask;
}

}  // namespace attn::detail
