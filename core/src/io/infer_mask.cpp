// AttnScope core — what a loaded file's own weights say about its mask. GPL-3.0-or-later.
#include "attn/io/infer_mask.hpp"

#include <algorithm>

namespace attn::io {

namespace {

bool zero_above_diagonal(const Matrix& m) {
    for (Index i = 0; i + 1 < m.rows(); ++i)
        if ((m.row(i).tail(m.cols() - i - 1).array() != 0.f).any()) return false;
    return true;
}

}  // namespace

bool scores_need_causal_mask(const AttentionData& data) {
    const auto& cs = data.components;
    const bool has_scores =
        std::any_of(cs.begin(), cs.end(), [](const AttentionComponent& c) { return c.are_scores; });
    if (!has_scores) return false;
    for (const AttentionComponent& c : cs) {
        if (c.are_scores || c.mats.empty()) continue;
        const Index n = c.mats.front().rows();
        // A single token, or a rectangular (cross) block, says nothing about causality.
        if (n < 2) continue;
        const bool causal = std::all_of(c.mats.begin(), c.mats.end(), [&](const Matrix& m) {
            return m.rows() == m.cols() && zero_above_diagonal(m);
        });
        if (causal) return true;
    }
    return false;
}

}  // namespace attn::io
