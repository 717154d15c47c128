// AttnScope core — a head's scaled and masked scores, derived from its raw scores on read.
// GPL-3.0-or-later.
#include <limits>
#include <string>

#include "attn/attention/attention.hpp"
#include "attn/util/error.hpp"
#include "detail.hpp"

namespace attn {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

void require_raw(const HeadResult& h, Index first, Index count) {
    if (h.raw.size() == 0)
        throw ArgumentError("The scores of this head were not kept; only its weights were.");
    if (first < 0 || count < 0 || first + count > h.raw.rows())
        throw ArgumentError("Queries " + std::to_string(first) + ".." +
                            std::to_string(first + count) + " are outside the head's " +
                            std::to_string(h.raw.rows()) + ".");
}

}  // namespace

// The operations are those of the softmax pass (detail::weigh_row): one float multiply by the
// multiplier, then −∞ selected where the mask forbids, so the derived numbers are the ones the
// weights were computed from, bit for bit.
Eigen::RowVectorXf HeadResult::scaled_row(Index i) const {
    require_raw(*this, i, 1);
    return raw.row(i) * multiplier;
}

void HeadResult::masked_rows(Index first, Index count, Matrix& out) const {
    require_raw(*this, first, count);
    out.resize(count, raw.cols());
    out = raw.middleRows(first, count) * multiplier;
    if (mask.kind == MaskKind::None) return;
    const BoolMatrix allowed = build_mask_rows(mask, raw.rows(), raw.cols(), first, count);
    out = allowed.select(out, kNegInf);
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
    if (mask.kind != MaskKind::None &&
        !build_mask_block(mask, raw.rows(), raw.cols(), i, 1, j, 1)(0, 0))
        return kNegInf;
    return raw(i, j) * multiplier;
}

Matrix HeadResult::scaled_matrix() const {
    if (raw.size() == 0) return {};
    return raw * multiplier;
}

Matrix HeadResult::masked_matrix() const {
    Matrix m;
    if (raw.size() != 0) masked_rows(0, raw.rows(), m);
    return m;
}

}  // namespace attn
