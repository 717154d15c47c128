// AttnScope core — one row of a head's score stages, stored or recomputed. GPL-3.0-or-later.
#include <limits>
#include <string>

#include "attn/attention/multihead.hpp"
#include "attn/scene/scene.hpp"
#include "attn/util/error.hpp"
#include "attn/util/stage_counters.hpp"
#include "scene_detail.hpp"

namespace attn {

namespace {

const HeadResult& checked_head(const SceneResult& r, Index h, Index i) {
    if (h < 0 || h >= static_cast<Index>(r.heads.size()))
        throw ArgumentError("Head " + std::to_string(h) + " does not exist (the scene has " +
                            std::to_string(r.heads.size()) + ").");
    const HeadResult& head = r.heads[static_cast<std::size_t>(h)];
    const Index nq = head.streamed() ? r.query_count() : head.weights.rows();
    if (i < 0 || i >= nq)
        throw ArgumentError("Query " + std::to_string(i) + " does not exist (the head has " +
                            std::to_string(nq) + ").");
    if (!r.has_scores) throw ArgumentError("Post-softmax attention has no scores to show.");
    return head;
}

}  // namespace

Eigen::RowVectorXf SceneResult::raw_row(Index h, Index i) const {
    const HeadResult& head = checked_head(*this, h, i);
    if (head.has_stages()) return head.raw.row(i);
    if (source) return source_row(h, i);
    if (!has_vectors || head_scores.size() != heads.size() || d_k <= 0)
        throw ArgumentError("The scores of this scene were not kept and cannot be recomputed.");
    stage_counters().score_rows.fetch_add(1, std::memory_order_relaxed);
    // The same call the full computation made, on one query: identical numbers.
    const Index g = kv_head_of(h, static_cast<Index>(heads.size()), kv_heads);
    const detail::ConstRef q = Q.block(i, h * d_k, 1, d_k);
    const detail::ConstRef k = K.middleCols(g * d_k, d_k);
    Matrix out;
    detail::scores_into(q, k, head_scores[static_cast<std::size_t>(h)], out);
    return out.row(0);
}

Eigen::RowVectorXf SceneResult::source_row(Index h, Index i) const {
    Eigen::RowVectorXf row(key_count());
    source->read_row(layer, h, i, row.data());
    return row;
}

namespace {

/// Query i's scaled or soft-capped scores in head h: the head's own, or from recomputed raw
/// scores through the same score_stages.
Eigen::RowVectorXf unmasked_stage(const SceneResult& r, Index h, Index i, float* StageRow::*stage) {
    const HeadResult& head = checked_head(r, h, i);
    if (head.has_stages())
        return stage == &StageRow::scaled ? head.scaled_row(i) : head.softcapped_row(i);
    Eigen::RowVectorXf row = r.raw_row(h, i);
    StageRow out;
    out.*stage = row.data();
    score_stages(head, row.data(), i, 0, row.size(), nullptr, out);
    return row;
}

}  // namespace

Eigen::RowVectorXf SceneResult::scaled_row(Index h, Index i) const {
    return unmasked_stage(*this, h, i, &StageRow::scaled);
}

Eigen::RowVectorXf SceneResult::softcapped_row(Index h, Index i) const {
    return unmasked_stage(*this, h, i, &StageRow::softcapped);
}

Eigen::RowVectorXf SceneResult::masked_row(Index h, Index i) const {
    const HeadResult& head = checked_head(*this, h, i);
    if (head.has_stages()) return head.masked_row(i);
    Eigen::RowVectorXf row = raw_row(h, i);
    BoolMatrix allowed;
    if (visible.rows() > i && visible.cols() == row.size())
        allowed = visible.row(i);
    else if (storage == Storage::Streamed && mask.kind != MaskKind::None)
        allowed = build_mask_rows(mask, query_count(), key_count(), i, 1);
    score_stages(head, row.data(), i, 0, row.size(), allowed.size() ? allowed.data() : nullptr,
                 StageRow{.masked = row.data()});
    return row;
}

Eigen::RowVectorXf SceneResult::output_row(Index h, Index i) const {
    const HeadResult& head = checked_head(*this, h, i);
    if (head.output.rows() > i && head.output.rows() == head.weights.rows())
        return head.output.row(i);
    if (!has_vectors || d_k <= 0)
        throw ArgumentError("The outputs of this scene were not kept and cannot be recomputed.");
    const Index g = kv_head_of(h, static_cast<Index>(heads.size()), kv_heads);
    return weights_row(h, i) * V.middleCols(g * d_k, d_k);
}

Eigen::RowVectorXf SceneResult::weights_row(Index h, Index i) const {
    if (h < 0 || h >= static_cast<Index>(heads.size()))
        throw ArgumentError("Head " + std::to_string(h) + " does not exist (the scene has " +
                            std::to_string(heads.size()) + ").");
    const HeadResult& head = heads[static_cast<std::size_t>(h)];
    if (!head.streamed()) {
        if (i < 0 || i >= head.weights.rows())
            throw ArgumentError("Query " + std::to_string(i) + " does not exist (the head has " +
                                std::to_string(head.weights.rows()) + ").");
        return head.weights.row(i);
    }
    if (!has_scores && source) {
        if (i < 0 || i >= query_count())
            throw ArgumentError("Query " + std::to_string(i) + " does not exist (the head has " +
                                std::to_string(query_count()) + ").");
        return source_row(h, i);
    }
    // The same scaling, mask and softmax as the tiled pass, on this query's recomputed scores.
    const Eigen::RowVectorXf z = masked_row(h, i);
    Eigen::RowVectorXf w(z.size());
    if (head.hard)
        detail::hardmax_row(z.data(), w.data(), z.size(), i);
    else
        detail::softmax_row(z.data(), w.data(), z.size(), i);
    return w;
}

float SceneResult::weight(Index h, Index i, Index j) const {
    const Eigen::RowVectorXf row = weights_row(h, i);  // checks h and i
    if (j < 0 || j >= row.size())
        throw ArgumentError("Key " + std::to_string(j) + " does not exist (the head has " +
                            std::to_string(row.size()) + ").");
    return row(j);
}

bool SceneResult::is_masked(Index h, Index i, Index j) const {
    if (!has_scores || h < 0 || h >= static_cast<Index>(heads.size())) return false;
    const HeadResult& head = heads[static_cast<std::size_t>(h)];
    if (head.streamed()) {
        if (i < 0 || j < 0 || i >= query_count() || j >= key_count()) return false;
        return mask.kind != MaskKind::None &&
               !build_mask_block(mask, query_count(), key_count(), i, 1, j, 1)(0, 0);
    }
    if (i < 0 || j < 0 || i >= head.weights.rows() || j >= head.weights.cols()) return false;
    if (head.has_stages()) return head.masked_at(i, j) == -std::numeric_limits<float>::infinity();
    return visible.size() != 0 && !visible(i, j);
}

}  // namespace attn

namespace attn {

Index SceneResult::kv_group_count() const {
    const Index heads_n = static_cast<Index>(heads.size());
    const Index g = kv_groups > 0 ? kv_groups : kv_heads;
    return g > 0 && g <= heads_n && heads_n % g == 0 ? g : heads_n;
}

Index SceneResult::kv_group_of(Index h) const {
    const Index groups = kv_group_count();
    return groups > 0 ? h / (static_cast<Index>(heads.size()) / groups) : 0;
}

}  // namespace attn
