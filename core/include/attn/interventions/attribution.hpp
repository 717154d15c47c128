// AttnScope core — direct logit attribution: each head's, MLP's and the embedding's share of
// one token's logit, with the final norm's scale frozen. GPL-3.0-or-later.
// The method and its formula are in docs/interventions.md.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/models/model.hpp"
#include "attn/models/run.hpp"

namespace attn::interv {

/// One token's logit at one position split into the parts that wrote the residual stream.
/// heads.sum() + mlp.sum() + embed + attn_bias.sum() + norm_bias = logit (float rounding).
struct Attribution {
    std::int32_t token = 0;
    Index position = 0;
    Matrix heads;          ///< [layers, heads]: each head's z · W_O through the frozen norm
    Vector mlp;            ///< [layers]: each MLP block's output
    Vector attn_bias;      ///< [layers]: each attention block's output bias
    double embed = 0;      ///< the residual stream entering layer 0 (token + position)
    double norm_bias = 0;  ///< the final norm's bias · unembedding, plus the output bias
    double logit = 0;      ///< the run's logit of token at position
    /// Every part added up (equals logit up to float rounding).
    double total() const;
};

/// The logit of TOKEN from the residual row Y (1 × d_model) through MODEL's final norm frozen
/// at Y and TOKEN's unembedding: exactly what the output head computes for that token.
double token_logit(const model::Model& model, const Matrix& y, std::int32_t token);

/// Runs IDS with CONTROLS and attributes TOKEN's logit at the last position. Throws
/// ArgumentError for a token outside the vocabulary and for a post-norm family (the final norm
/// of a post-norm model is not the last map before the output head).
Attribution attribute(const model::Model& model, const std::vector<std::int32_t>& ids,
                      std::int32_t token, const model::RunControls& controls = {},
                      Progress* progress = nullptr);

}  // namespace attn::interv
