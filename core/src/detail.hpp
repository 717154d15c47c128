// AttnScope core — internal helpers shared by the core sources (not installed). GPL-3.0-or-later.
#pragma once

#include <limits>
#include <string>

#include "attn/attention.hpp"
#include "attn/types.hpp"

namespace attn {
struct HeadStats;
}

namespace attn::detail {

/// A read-only view of a row-major matrix or of a column block of one (e.g. one head's slice).
using ConstRef = Eigen::Ref<const Matrix, 0, Eigen::OuterStride<>>;

/// "rows x cols", for error messages.
std::string shape(Index rows, Index cols);

/// Throws NonFiniteError naming `what` and the first offending entry when m has NaN or ±inf.
void require_finite(const ConstRef& m, const std::string& what);

/// compute_scores on views, writing into out (resized as needed); inputs already validated.
void scores_into(const ConstRef& Q, const ConstRef& K, const ScoreParams& params, Matrix& out);

/// Validates shapes and values of a score computation; throws ShapeError/ArgumentError.
void check_score_inputs(const ConstRef& Q, const ConstRef& K, const ScoreParams& params);

/// attend on views, writing every stage into out (only weights, output and empty_rows when
/// params.keep_stages is false); validates everything first. With stats, also fills the head's
/// statistics (in the same pass when stages are not kept).
void attend_into(const ConstRef& Q, const ConstRef& K, const ConstRef& V,
                 const AttentionParams& params, HeadResult& out, HeadStats* stats = nullptr);

/// Scaling, temperature, mask and softmax of out.raw (already filled); fills the later stages
/// except output. d_k is the width used for 1/√d_k.
void finish_scores(float d_k, const AttentionParams& params, HeadResult& out);

}  // namespace attn::detail

namespace attn::detail {

/// A softmax row's normalisers: out_j = exp(in_j − max) · inv_sum (NaN when the fast path did
/// not settle the row).
struct RowNorm {
    float max = std::numeric_limits<float>::quiet_NaN();
    float inv_sum = std::numeric_limits<float>::quiet_NaN();
};

/// Softmax of one row of n logits from in to out (must not alias); returns true when the row is
/// entirely −inf (then out is all zeros). Throws NonFiniteError on NaN, naming row. When given,
/// log_sum_exp receives log Σ exp(in) (NaN for rows the fast path did not settle) and norm the
/// normalisers.
bool softmax_row(const float* in, float* out, Index n, Index row, double* log_sum_exp = nullptr,
                 RowNorm* norm = nullptr);
/// Hard (argmax) row: equal split among the maximal entries; same return and errors.
bool hardmax_row(const float* in, float* out, Index n, Index row);

}  // namespace attn::detail
