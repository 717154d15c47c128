// AttnScope core — the score stages of a row: scale, soft-cap, position bias, temperature and
// mask. GPL-3.0-or-later.
#include "attn/attention/score_stages.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "attn/simd/softmax_kernel.hpp"
#include "attn/util/error.hpp"

namespace attn {

float PositionBias::at(Index head, Index i, Index j) const {
    if (per_head.empty()) return function ? function(head, i, j) : 0.f;
    const Matrix& m = per_head[per_head.size() == 1 ? 0 : static_cast<std::size_t>(head)];
    if (head < 0 || (per_head.size() > 1 && head >= static_cast<Index>(per_head.size())) ||
        i >= m.rows() || j >= m.cols())
        throw ShapeError("The position bias of head " + std::to_string(head) + " is " +
                         std::to_string(m.rows()) + " × " + std::to_string(m.cols()) +
                         " and does not cover query " + std::to_string(i) + ", key " +
                         std::to_string(j) + ".");
    return m(i, j);
}

namespace {

/// dst = src (n floats) unless they are the same array.
void carry(const float* src, float* dst, Index n) {
    if (src != dst) std::copy(src, src + n, dst);
}

}  // namespace

void score_stages(const ScoreStages& st, const float* in, Index i, Index j0, Index n,
                  const bool* allowed, StageRow out, ScoreStage from) {
    // Each stage is written into the first wanted buffer at or after it, so one buffer (a row
    // scaled and masked in place) takes every step.
    float* const scaled = out.scaled ? out.scaled : out.softcapped ? out.softcapped : out.masked;
    if (!scaled) return;
    carry(in, scaled, n);
    // The kernel's product is the same float multiply as staged_score's raw · multiplier (and
    // its tempering below the same as its · tempering), a row at a time.
    if (from == ScoreStage::Raw && st.multiplier != 1.f) simd::scale(scaled, n, st.multiplier);
    float* const capped = out.softcapped ? out.softcapped : out.masked;
    if (!capped) return;
    carry(scaled, capped, n);
    if (st.bias) {
        for (Index c = 0; c < n; ++c) {
            const float b = st.bias->at(st.bias_head, i, j0 + c);
            capped[c] = shaped_score(capped[c], st.softcap, &b);
        }
    } else if (st.softcap > 0.f) {
        for (Index c = 0; c < n; ++c)
            capped[c] = shaped_score(capped[c], st.softcap, static_cast<const float*>(nullptr));
    }
    if (!out.masked) return;
    carry(capped, out.masked, n);
    if (st.tempering != 1.f) simd::scale(out.masked, n, st.tempering);
    if (allowed) {
        constexpr float ninf = -std::numeric_limits<float>::infinity();
        for (Index c = 0; c < n; ++c)
            out.masked[c] = allowed[c] ? out.masked[c] : ninf;
    }
}

}  // namespace attn
