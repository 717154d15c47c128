// AttnScope core — counts of the computation's stages. GPL-3.0-or-later.
#include "attn/util/stage_counters.hpp"

namespace attn {

StageCounters& stage_counters() {
    static StageCounters counters;
    return counters;
}

StageCounts StageCounts::now() {
    const StageCounters& c = stage_counters();
    return {c.projections.load(), c.score_heads.load(), c.softmax_heads.load(),
            c.score_rows.load()};
}

StageCounts StageCounts::operator-(const StageCounts& b) const {
    return {projections - b.projections, score_heads - b.score_heads,
            softmax_heads - b.softmax_heads, score_rows - b.score_rows};
}

}  // namespace attn
