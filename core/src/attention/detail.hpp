// AttnScope core — internal helpers shared by the core sources (not installed). GPL-3.0-or-later.
#pragma once

#include <limits>
#include <string>

#include "../util/large_buffers.hpp"
#include "attn/attention/attention.hpp"
#include "attn/attention/multihead.hpp"
#include "attn/simd/softmax_kernel.hpp"
#include "attn/util/types.hpp"

namespace attn {
struct HeadStats;
struct RowStats;
}  // namespace attn

namespace attn::detail {

/// A read-only view of a row-major matrix or of a column block of one (e.g. one head's slice).
using ConstRef = Eigen::Ref<const Matrix, 0, Eigen::OuterStride<>>;

/// "rows x cols", for error messages.
std::string shape(Index rows, Index cols);

/// Throws NonFiniteError naming `what` and the first offending entry when m has NaN or ±inf.
void require_finite(const ConstRef& m, const std::string& what);

/// A writable view of a row-major matrix or of a block of its rows.
using MatrixRef = Eigen::Ref<Matrix, 0, Eigen::OuterStride<>>;

/// compute_scores on views, writing into out (resized as needed); inputs already validated.
void scores_into(const ConstRef& Q, const ConstRef& K, const ScoreParams& params, Matrix& out);
/// The same into out, already Q.rows() × K.rows() (e.g. a block of rows of a larger matrix).
void scores_into(const ConstRef& Q, const ConstRef& K, const ScoreParams& params, MatrixRef out);

/// K (nk × width) packed for simd::dot_rows: per block of `lanes` keys (the dispatched kernel's
/// width), each dimension's `lanes` values together, the last block padded with zeros.
void pack_keys(const ConstRef& K, Index lanes, Matrix& packed);

/// Validates shapes and values of a score computation; throws ShapeError/ArgumentError.
/// finite_known: the caller has checked Q and K for NaN/±inf already.
void check_score_inputs(const ConstRef& Q, const ConstRef& K, const ScoreParams& params,
                        bool finite_known = false);

/// attend on views, writing every stage into out (only weights, output and empty_rows when
/// params.keep_stages is false); validates everything first (Q, K and V's values not when
/// finite_known). With stats, also fills the head's statistics (in the same pass when stages
/// are not kept).
void attend_into(const ConstRef& Q, const ConstRef& K, const ConstRef& V,
                 const AttentionParams& params, HeadResult& out, HeadStats* stats = nullptr,
                 bool finite_known = false);

/// Scaling, temperature, mask and softmax of out.raw (already filled, or raw's raw scores when
/// given: copied unless out holds the same raw_version): the weights, empty rows, score stages
/// and mask (not output). d_k is the width used for 1/√d_k. With stats, also the head's statistics,
/// in the same pass.
void finish_scores(float d_k, const AttentionParams& params, HeadResult& out,
                   HeadStats* stats = nullptr, const HeadResult* raw = nullptr);

/// The heads and layer output of multi_head_into from the projections already in r (r.Q, r.K,
/// r.V). raw_from: a previous result's heads, one per head, holding raw scores of these
/// projections: each head copies them (in its own task) and only the scaling, mask, softmax,
/// statistics and outputs run, by the same calls as a full computation, so the numbers are
/// bit-identical to it.
void heads_into(const MultiHeadWeights& weights, const MultiHeadConfig& config,
                const AttentionParams& params, MultiHeadResult& r, Progress* progress,
                bool with_stats, const std::vector<HeadResult>* raw_from);

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
/// out = exp(in − max) (exactly 0 where in is −inf), returning Σ out in double: softmax_row's
/// fast path before its division, the same numbers.
double exp_row(const float* in, float* out, Index n, float max);
/// Hard (argmax) row: equal split among the maximal entries; same return and errors.
bool hardmax_row(const float* in, float* out, Index n, Index row);

/// Validates τ, d_k, the scale factor and the soft-cap, and records the head's score stages
/// (scale, soft-cap, bias, temperature) in out; true when hard.
bool set_stages(float d_k, const AttentionParams& params, HeadResult& out);

/// The scaled and masked scores the softmax sees, in place, of one row of raw scores of query i
/// (score_stages): −∞ where mask's row mask_row hides a key (mask may be null).
template <class Row>
void scale_and_mask(Row&& row, const BoolMatrix* mask, Index mask_row, const ScoreStages& st,
                    Index i) {
    score_stages(st, row.data(), i, 0, row.size(), mask ? mask->row(mask_row).data() : nullptr,
                 StageRow{.masked = row.data()});
}

/// Scales and masks one row of scores of query i in place, then writes its weights; true if all
/// masked. mask may be null (nothing masked); its row mask_row belongs to this query.
template <class Row>
bool weigh_row(Row&& row, const BoolMatrix* mask, Index mask_row, const ScoreStages& st, float* w,
               Index i, double* log_sum_exp = nullptr) {
    scale_and_mask(row, mask, mask_row, st, i);
    const Index nk = row.size();
    if (st.hard) {
        if (log_sum_exp) *log_sum_exp = std::numeric_limits<double>::quiet_NaN();
        return hardmax_row(row.data(), w, nk, i);
    }
    return softmax_row(row.data(), w, nk, i, log_sum_exp);
}

/// Statistics of a softmax row given its exponentials e_j = exp(z_j − max) and inv_sum =
/// 1 / Σ e (weights w_j = e_j · inv_sum), with z the masked scores; folds the weights into
/// col_max and col_sum (BlockSums::Columns; written instead when fresh; both null: no columns)
/// and stores them into weights (may be e itself; null: not stored) in the same pass. The same
/// numbers as row_stats_softmax on the weights, for rows whose max and sum are finite, and the
/// same weights as softmax_row's final scaling.
RowStats softmax_row_stats(const float* e, const float* z, Index n, Index query_pos, float inv_sum,
                           double log_sum_exp, float* col_max, float* col_sum, bool fresh,
                           float* weights = nullptr);

/// The streamed pass of one head (AttentionParams::overview_cells > 0): per query its softmax
/// normalisers, into the block overview and (with stats) its statistics, tile by tile; nothing
/// n × n is kept. out's score stages are set already (set_stages).
void attend_streamed(const ConstRef& Q, const ConstRef& K, const AttentionParams& params,
                     HeadResult& out, HeadStats* stats);

}  // namespace attn::detail
