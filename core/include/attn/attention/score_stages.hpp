// AttnScope core — the stages between a head's raw scores and the logits its softmax sees, each
// derived by one function (score_stages) wherever a stage is computed or shown.
// GPL-3.0-or-later.
#pragma once

#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include "attn/util/types.hpp"

namespace attn {

/// An additive position bias (T5's relative buckets, ALiBi): added to the soft-capped scores
/// before the temperature and the mask.
struct PositionBias {
    /// One nq × nk matrix per head (head h reads per_head[h], or the only one); empty: function.
    std::vector<Matrix> per_head;
    /// bias(head, i, j) for query i and key j; used when per_head is empty.
    std::function<float(Index head, Index i, Index j)> function;
    /// The bias of head h at (i, j); throws ShapeError when a matrix does not cover it.
    float at(Index head, Index i, Index j) const;
};

/// Which stage score_stages starts from: its input already went through the ones before.
enum class ScoreStage { Raw, Scaled };

/// How one head's raw scores s become logits: scaled = s · multiplier; soft-capped =
/// softcap · tanh(scaled / softcap) + bias(i, j) (either part optional); masked = soft-capped ·
/// tempering, −∞ where the mask hides the key. Without a soft-cap or a bias the temperature is
/// folded into the multiplier (one multiply, soft-capped = scaled, tempering 1); with one, τ
/// divides after them, so that τ → 0 still sharpens towards the argmax.
struct ScoreStages {
    float scale_factor = 1.f;  ///< the factor applied before τ (1/√d_k, the family's, or 1)
    float multiplier = 1.f;    ///< scaled = raw · multiplier
    bool hard = false;         ///< τ ≤ kHardTemperature: hardmax rows
    float softcap = 0.f;       ///< > 0: softcap · tanh(scaled / softcap); 0: no soft-capping
    std::shared_ptr<const PositionBias> bias;  ///< added after the soft-cap (null: none)
    Index bias_head = 0;                       ///< the head of `bias` this head reads
    float tempering = 1.f;  ///< 1/τ applied after the soft-cap and bias (1 when folded)
    /// True when a stage sits between scaled and masked (soft-capping or a position bias).
    bool shaped() const { return softcap > 0.f || bias != nullptr; }
    /// The same stages at τ = 1: the scores before the temperature (a lens applying its own).
    ScoreStages at_unit_temperature() const {
        ScoreStages s = *this;
        s.multiplier = scale_factor;
        s.tempering = 1.f;
        s.hard = false;
        return s;
    }
};

/// One scaled score through the shaped stages (ScoreStages): softcap · tanh(scaled / softcap)
/// when softcap > 0, then + *bias when given. Written once, for every scalar: score_stages runs
/// it on its rows and blocks::head_logit on each score, so the reverse pass differentiates the
/// map the forward of record computes, to the bit in float.
template <class S>
S shaped_score(S scaled, S softcap, const S* bias) {
    S z = scaled;
    if (softcap > S(0)) z = softcap * std::tanh(z / softcap);
    // Its own statement: clang contracts a product and a sum of one expression into a fused
    // multiply-add on an FMA target, which would round the soft-capped score differently.
    if (bias) z += *bias;
    return z;
}

/// One raw score through every stage before the mask: scaled (raw · multiplier), shaped
/// (shaped_score), tempered (· tempering). score_stages computes the two products a row at a
/// time (simd::scale: the same float multiply) around shaped_score.
template <class S>
S staged_score(S raw, S multiplier, S softcap, const S* bias, S tempering) {
    return shaped_score(raw * multiplier, softcap, bias) * tempering;
}

/// Where score_stages writes each stage of a row (null: not wanted). Any may be the input
/// itself (in place) or each other: the stages are written in order.
struct StageRow {
    float* scaled = nullptr;
    float* softcapped = nullptr;
    float* masked = nullptr;
};

/// Every stage of keys [j0, j0 + n) of query i from `in` (raw scores, or scaled ones when
/// from is Scaled): allowed[c] false hides key j0 + c (null: all visible). The one derivation
/// of scaled, soft-capped and masked scores: the softmax passes, the views' rows and the
/// exports all call it, so what is shown is what the weights were computed from, to the bit.
void score_stages(const ScoreStages& st, const float* in, Index i, Index j0, Index n,
                  const bool* allowed, StageRow out, ScoreStage from = ScoreStage::Raw);

}  // namespace attn
