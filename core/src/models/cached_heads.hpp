// AttnScope core — every head of a layer over its new rows, keys and values kept between runs:
// the loop each family's attention runs around attend_head. GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/blocks/projections.hpp"
#include "attn/models/run.hpp"

namespace attn::model {

/// Every head of layer LAYER over its M new rows (positions first, first + 1, …): query head
/// h's q is ROWS(h, Part::Q), its k and v ROWS(g, Part::K) and ROWS(g, Part::V) of its
/// key/value head g = h / (heads / kv_heads), computed once a group; each m × head_dim, after
/// the earlier run's FIRST rows of PAST (null when first is 0). Each head is weighed by
/// attend_head under PARAMS; its q, k, v and stages go to OUT. Returns the heads' outputs side
/// by side (m × heads · head_dim).
template <class Rows>
Matrix attend_cached_heads(const Rows& rows, int heads, int kv_heads, Index head_dim, Index m,
                           Index first, const LayerAttention* past, const AttentionParams& params,
                           int layer, Hooks& hooks, LayerAttention& out) {
    // A head's q, k or v over every position: the earlier run's rows, then the new ones.
    const auto whole = [&](const std::vector<Matrix>* old, Index head, const Matrix& now) {
        Matrix t(first + m, head_dim);
        if (first > 0) t.topRows(first) = (*old)[std::size_t(head)].topRows(first);
        t.bottomRows(m) = now;
        return t;
    };
    std::vector<Matrix> kg, vg;  // each key/value group's new rows, shared by its query heads
    for (Index g = 0; g < kv_heads; ++g) {
        kg.push_back(rows(g, blocks::Part::K));
        vg.push_back(rows(g, blocks::Part::V));
    }
    const Index group = heads / kv_heads;
    Matrix merged(m, Index(heads) * head_dim), z;
    for (Index h = 0; h < heads; ++h) {
        const std::size_t g = std::size_t(h / group);
        out.q.push_back(whole(past ? &past->q : nullptr, h, rows(h, blocks::Part::Q)));
        out.k.push_back(whole(past ? &past->k : nullptr, h, kg[g]));
        out.v.push_back(whole(past ? &past->v : nullptr, h, vg[g]));
        out.heads.push_back(attend_head(out.q.back(), out.k.back(), out.v.back(), params, layer,
                                        int(h), first, hooks, z));
        merged.middleCols(h * head_dim, head_dim) = z;
    }
    return merged;
}

}  // namespace attn::model
