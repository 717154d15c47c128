// AttnScope core — a head's scaled, soft-capped and masked scores, derived from its raw scores on
// read. GPL-3.0-or-later.
#include <string>

#include "attn/attention/attention.hpp"
#include "attn/util/error.hpp"
#include "detail.hpp"

namespace attn {

namespace {

void require_raw(const HeadResult& h, Index first, Index count) {
    if (h.raw.size() == 0)
        throw ArgumentError("The scores of this head were not kept; only its weights were.");
    if (first < 0 || count < 0 || first + count > h.raw.rows())
        throw ArgumentError("Queries " + std::to_string(first) + ".." +
                            std::to_string(first + count) + " are outside the head's " +
                            std::to_string(h.raw.rows()) + ".");
}

/// Rows [first, first + count) of one stage of h's scores into out (count × nk), by
/// score_stages: the calls of the softmax pass (detail::weigh_row), so the derived numbers are
/// the ones the weights were computed from, bit for bit. The mask is built once for the rows.
void stage_block(const HeadResult& h, Index first, Index count, Matrix& out,
                 float* StageRow::*stage) {
    require_raw(h, first, count);
    out.resize(count, h.raw.cols());
    const Index nk = h.raw.cols();
    const bool masking = stage == &StageRow::masked && h.mask.kind != MaskKind::None;
    const BoolMatrix allowed =
        masking ? build_mask_rows(h.mask, h.raw.rows(), nk, first, count) : BoolMatrix();
    for (Index r = 0; r < count; ++r) {
        StageRow row;
        row.*stage = out.row(r).data();
        score_stages(h, h.raw.row(first + r).data(), first + r, 0, nk,
                     masking ? allowed.row(r).data() : nullptr, row);
    }
}

}  // namespace

Eigen::RowVectorXf HeadResult::scaled_row(Index i) const {
    Matrix m;
    stage_block(*this, i, 1, m, &StageRow::scaled);
    return m.row(0);
}

Eigen::RowVectorXf HeadResult::softcapped_row(Index i) const {
    Matrix m;
    stage_block(*this, i, 1, m, &StageRow::softcapped);
    return m.row(0);
}

void HeadResult::masked_rows(Index first, Index count, Matrix& out) const {
    stage_block(*this, first, count, out, &StageRow::masked);
}

Eigen::RowVectorXf HeadResult::masked_row(Index i) const {
    Matrix m;
    masked_rows(i, 1, m);
    return m.row(0);
}

float HeadResult::masked_at(Index i, Index j) const {
    require_raw(*this, i, 1);
    if (j < 0 || j >= raw.cols())
        throw ArgumentError("Key " + std::to_string(j) + " is outside the head's " +
                            std::to_string(raw.cols()) + ".");
    bool allowed = true;
    if (mask.kind != MaskKind::None)
        allowed = build_mask_block(mask, raw.rows(), raw.cols(), i, 1, j, 1)(0, 0);
    float z = 0;
    score_stages(*this, &raw(i, j), i, j, 1, &allowed, StageRow{.masked = &z});
    return z;
}

Matrix HeadResult::scaled_matrix() const {
    Matrix m;
    if (raw.size() != 0) stage_block(*this, 0, raw.rows(), m, &StageRow::scaled);
    return m;
}

Matrix HeadResult::softcapped_matrix() const {
    Matrix m;
    if (raw.size() != 0) stage_block(*this, 0, raw.rows(), m, &StageRow::softcapped);
    return m;
}

Matrix HeadResult::masked_matrix() const {
    Matrix m;
    if (raw.size() != 0) masked_rows(0, raw.rows(), m);
    return m;
}

}  // namespace attn
