// AttnScope core — single-head scaled attention with every stage kept. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "attn/attention/aggregate.hpp"
#include "attn/attention/mask.hpp"
#include "attn/attention/score.hpp"
#include "attn/attention/score_stages.hpp"
#include "attn/util/progress.hpp"
#include "attn/util/types.hpp"

namespace attn {

/// Temperatures at or below this are treated as the hard (argmax) limit τ → 0.
inline constexpr float kHardTemperature = 1e-6f;

/// Everything that turns raw scores into weights.
struct AttentionParams {
    ScoreParams score;              ///< score function (kind + its matrices)
    bool scale = true;              ///< multiply dot/general scores by the scale factor
    std::optional<float> scale_dk;  ///< d_k used for 1/√d_k; default: Q's width
    /// The family's scale factor in place of 1/√d_k (Gemma: query_pre_attn_scalar^−½; 1: none).
    std::optional<float> scale_factor;
    /// > 0: softcap · tanh(scaled / softcap) on the scaled scores, before the mask (Gemma 2's
    /// attn_logit_softcapping); 0: none.
    float softcap = 0.f;
    /// Added to the soft-capped scores (T5-style relative bias, ALiBi); null: none.
    std::shared_ptr<const PositionBias> bias;
    Index bias_head = 0;      ///< the head of `bias` this head reads (multi_head: its own index)
    float temperature = 1.f;  ///< τ > 0 divides the scores; ≤ kHardTemperature: argmax
    MaskSpec mask;            ///< which keys each query may see
    /// false: only weights and empty_rows are stored (one row-tiled pass); raw, scaled, masked
    /// and output stay empty and a SceneResult recomputes their rows on demand.
    bool keep_stages = true;
    /// With keep_stages false (and not streamed): compute each head's output (weights · V, a
    /// tile at a time while its weights are in cache) and the layer's output too, keeping no raw
    /// scores: what PyTorch's nn.MultiheadAttention returns with need_weights.
    bool keep_output = false;
    /// With keep_stages: also store each head's output (weights · V) and the layer's. Off, they
    /// are derived when read (SceneResult::output_row), as the application's views read them: a
    /// control change then skips two GEMMs nobody looks at.
    bool stage_outputs = true;
    /// > 0 with keep_stages false: not even the weights are stored (a streamed head): the pass
    /// keeps per-query softmax normalisers and block sums at this many cells per axis instead.
    int overview_cells = 0;
    /// Streamed heads only: compute every query_stride-th query alone, a coarse preview drawn
    /// while the exact pass runs (the other rows count as not yet seen).
    Index query_stride = 1;
    /// Streamed heads only: asked between tiles (attn::Cancelled when it says so), so that a
    /// long head stops within milliseconds, not at its end. Must be safe to ask from any thread.
    const Progress* stop = nullptr;
};

/// The score stages of a head of width d_k under PARAMS: the one derivation of its scale factor,
/// multiplier, soft-cap, bias, tempering and hardness, which the forward of record and the
/// reverse pass both read. Throws ArgumentError on a bad temperature, soft-cap, scale factor
/// or d_k.
ScoreStages head_score_stages(float d_k, const AttentionParams& params);

/// One head's computation, for "show the math". Only what cannot be derived is stored: the scaled,
/// soft-capped and masked scores are derived on read (scaled_row, masked_row, …) from raw by
/// score_stages with the stages this head ran with (its ScoreStages) and `mask`: the same float
/// operations the softmax saw.
struct HeadResult : ScoreStages {
    Matrix raw;      ///< nq × nk: s(q_i, k_j) (empty when only the weights are kept)
    Matrix weights;  ///< row softmax of the masked scores (hardmax when τ → 0); rows sum to 1 or 0
    Matrix output;  ///< nq × d_v: weights · V (zero rows for fully masked queries)
    std::vector<std::uint8_t> empty_rows;  ///< 1 where a query had no visible key
    MaskSpec mask;                         ///< the mask the weights were computed with
    /// Streamed heads: per query the softmax's max and 1 / Σ exp(z − max), so weight (i, j) is
    /// exp(z_ij − max_i) · inv_sum_i without any n × n matrix; NaN for rows the fast softmax did
    /// not settle (hard, +inf scores, empty), which are recomputed whole.
    std::vector<float> row_max, row_inv_sum;
    BlockSums overview;  ///< streamed heads: block maxima and sums of the weights
    /// Which computation of Q·Kᵀ raw holds (0: none known). Equal non-zero versions mean equal
    /// raw scores, so a restart into a recycled head skips copying what it holds already.
    std::uint64_t raw_version = 0;
    /// True when raw is kept, so every score stage can be derived (AttentionParams::keep_stages).
    bool has_stages() const { return raw.size() != 0 && raw.size() == weights.size(); }
    /// True when the weights are not stored (AttentionParams::overview_cells).
    bool streamed() const { return !row_max.empty() && weights.size() == 0; }
    /// Scaled scores of query i: raw.row(i) · multiplier. Needs has_stages().
    Eigen::RowVectorXf scaled_row(Index i) const;
    /// Soft-capped (and biased) scores of query i: scaled_row(i) when the head is not shaped().
    Eigen::RowVectorXf softcapped_row(Index i) const;
    /// Masked scores of query i: scaled_row(i) with −∞ at the keys the mask hides.
    Eigen::RowVectorXf masked_row(Index i) const;
    /// Masked scores of queries [first, first + count) into out (count × nk), the mask built once.
    void masked_rows(Index first, Index count, Matrix& out) const;
    /// Masked score of query i on key j.
    float masked_at(Index i, Index j) const;
    /// The whole scaled (masked) score matrix, nq × nk (empty without raw): an n² allocation,
    /// for exports; views read rows.
    Matrix scaled_matrix() const;
    /// The whole soft-capped score matrix, nq × nk (empty without raw), as scaled_matrix.
    Matrix softcapped_matrix() const;
    /// The whole masked score matrix, nq × nk (empty without raw), as scaled_matrix.
    Matrix masked_matrix() const;
};

/// Scaled (masked) attention of one head: Q nq×d_k, K nk×d_k, V nk×d_v. Throws on bad shapes,
/// NaN/Inf inputs and empty sequences.
HeadResult attend(const Matrix& Q, const Matrix& K, const Matrix& V, const AttentionParams& params);

/// Applies scaling (with d_k), temperature, mask and softmax to given raw scores (e.g. loaded
/// from a real model). V may be null, then output is empty.
HeadResult attend_scores(const Matrix& raw, float d_k, const AttentionParams& params,
                         const Matrix* V = nullptr);

}  // namespace attn
