// AttnScope core — counts of the computation's stages, to check what a change recomputes.
// GPL-3.0-or-later.
#pragma once

#include <atomic>
#include <cstdint>

namespace attn {

/// How many times each stage of the attention computation ran in this process (relaxed
/// atomic increments: one per head or pass, not per cell). Tests and diagnostics read them to
/// check that a control recomputes what it must and no more.
struct StageCounters {
    std::atomic<std::uint64_t> projections{0};  ///< multi-head projection passes (X·W_Q, W_K, W_V)
    std::atomic<std::uint64_t> score_heads{0};  ///< heads whose scores Q·Kᵀ (or s(q, k)) ran whole
    std::atomic<std::uint64_t> softmax_heads{0};  ///< heads whose scaling, mask and softmax ran
    std::atomic<std::uint64_t> score_rows{0};     ///< single query rows recomputed on demand
};

/// The process's counters.
StageCounters& stage_counters();

/// A copy of the counters' values, for differences.
struct StageCounts {
    std::uint64_t projections = 0, score_heads = 0, softmax_heads = 0, score_rows = 0;
    /// The counts now.
    static StageCounts now();
    /// Counts since `before`.
    StageCounts operator-(const StageCounts& before) const;
};

}  // namespace attn
