// AttnScope core — single-head attention with every stage kept. GPL-3.0-or-later.
#include "attn/attention.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "attn/error.hpp"
#include "attn/softmax.hpp"
#include "detail.hpp"

namespace attn {

namespace detail {

void finish_scores(float d_k, const AttentionParams& params, HeadResult& out) {
    const float tau = params.temperature;
    if (!(tau >= 0.f) || !std::isfinite(tau))
        throw ArgumentError("Temperature must be a finite number >= 0 (got " + std::to_string(tau) +
                            "); 0 means the hard argmax limit.");
    const bool scaled = params.scale && score_is_scalable(params.score.kind);
    if (scaled && !(d_k > 0.f && std::isfinite(d_k)))
        throw ArgumentError("Scaling needs a positive d_k (got " + std::to_string(d_k) + ").");
    out.scale_factor = scaled ? 1.f / std::sqrt(d_k) : 1.f;
    const bool hard = tau <= kHardTemperature;
    // In the hard limit τ only picks the argmax, which the scale cannot change: do not divide.
    const float c = hard ? out.scale_factor : out.scale_factor / tau;

    const Index nq = out.raw.rows(), nk = out.raw.cols();
    const bool masking = params.mask.kind != MaskKind::None;
    BoolMatrix mask;
    if (masking) mask = build_mask(params.mask, nq, nk);

    out.scaled.resize(nq, nk);
    out.masked.resize(nq, nk);
    out.weights.resize(nq, nk);
    out.empty_rows.assign(static_cast<std::size_t>(nq), 0);
    constexpr float ninf = -std::numeric_limits<float>::infinity();
    // One pass per row keeps the row in cache across the four stages.
    for (Index i = 0; i < nq; ++i) {
        if (c == 1.f)
            out.scaled.row(i) = out.raw.row(i);
        else
            out.scaled.row(i) = out.raw.row(i) * c;
        if (masking)
            out.masked.row(i) = mask.row(i).select(out.scaled.row(i), ninf);
        else
            out.masked.row(i) = out.scaled.row(i);
        const float* in = out.masked.row(i).data();
        float* w = out.weights.row(i).data();
        const bool empty = hard ? hardmax_row(in, w, nk, i) : softmax_row(in, w, nk, i);
        out.empty_rows[static_cast<std::size_t>(i)] = empty ? 1 : 0;
    }
}

void attend_into(const ConstRef& Q, const ConstRef& K, const ConstRef& V,
                 const AttentionParams& params, HeadResult& out) {
    check_score_inputs(Q, K, params.score);
    if (V.rows() != K.rows())
        throw ShapeError("V must have one row per key: K is " + shape(K.rows(), K.cols()) +
                         ", V is " + shape(V.rows(), V.cols()) + ".");
    if (V.cols() == 0) throw ArgumentError("V has zero width (" + shape(V.rows(), V.cols()) + ").");
    require_finite(V, "V");
    scores_into(Q, K, params.score, out.raw);
    finish_scores(params.scale_dk.value_or(static_cast<float>(Q.cols())), params, out);
    out.output.resize(Q.rows(), V.cols());
    out.output.noalias() = out.weights * V;
}

}  // namespace detail

HeadResult attend(const Matrix& Q, const Matrix& K, const Matrix& V,
                  const AttentionParams& params) {
    HeadResult out;
    detail::attend_into(Q, K, V, params, out);
    return out;
}

HeadResult attend_scores(const Matrix& raw, float d_k, const AttentionParams& params,
                         const Matrix* V) {
    if (raw.rows() == 0 || raw.cols() == 0)
        throw ArgumentError("Empty score matrix (" + detail::shape(raw.rows(), raw.cols()) +
                            "); attention needs at least one query and one key.");
    for (Index i = 0; i < raw.rows(); ++i)
        for (Index j = 0; j < raw.cols(); ++j)
            if (std::isnan(raw(i, j)))
                throw NonFiniteError("Raw scores contain NaN at row " + std::to_string(i) +
                                     ", column " + std::to_string(j) + ".");
    if (V) {
        if (V->rows() != raw.cols())
            throw ShapeError("V must have one row per key: the scores have " +
                             std::to_string(raw.cols()) + " keys, V is " +
                             detail::shape(V->rows(), V->cols()) + ".");
        detail::require_finite(*V, "V");
    }
    HeadResult out;
    out.raw = raw;
    detail::finish_scores(d_k, params, out);
    if (V) out.output = out.weights * *V;
    return out;
}

}  // namespace attn
