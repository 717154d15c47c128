// AttnScope core — the reverse-mode pass through a model's forward, written once against the
// families' layer descriptions (models/layer_description.hpp): the gradient of one target
// logit with respect to x0, the residual stream entering layer 0, and of every head's
// attention weights; and the gradient methods built on it (docs/attribution.md).
// GPL-3.0-or-later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "attn/models/model.hpp"
#include "attn/util/progress.hpp"

namespace attn::attrib {

/// TARGET's logit at POSITION for the input X0 and its gradients.
struct LogitGradient {
    double logit = 0;
    Matrix x0_grad;  ///< ∂logit/∂x0, n × d_model
    /// Each head's A ⊙ ∂logit/∂A, layer by layer (L · H of n × n); empty unless asked.
    std::vector<Matrix> attention_x_gradient;
};

/// The described forward of X0 (rows: every position) under CONTROLS (scale, temperature,
/// mask, rotary, their layers, ablation, knockouts), then its reverse: only the residual stream
/// entering each layer is kept, each layer's attention is recomputed on the way back. Throws
/// ArgumentError naming the family when it has no description; PROGRESS may cancel.
LogitGradient logit_gradient(const model::Model& model, const Matrix& x0,
                             const model::RunControls& controls, Index position,
                             std::int32_t target, bool attention_x_gradient = false,
                             Progress* progress = nullptr);

/// What the reverse reads of each layer's forward (internal to reverse_pass.cpp).
struct LayerTapes;

/// The described forward of X0 kept for its reverse: the residual stream entering each layer
/// and leaving the last (L + 1 of n × d), and each layer's tapes while they fit a budget (the
/// way back runs only the layers past it forward again).
struct DescribedForward {
    std::vector<Matrix> inputs;
    std::shared_ptr<LayerTapes> tapes;
    /// The rows of one sequence: the inputs may stack several (each attends only to itself);
    /// 0: every row is one sequence.
    Index sequence = 0;
    std::size_t tape_bytes = 0;  ///< every layer's tapes, kept or not: what one forward needs
};

/// How many bytes of tapes the forward keeps by default: a short text's every layer (64 tokens
/// of a 0.5B model take about 0.1 GB), a long one's first few (2048 tokens: about 0.6 GB a layer).
inline constexpr std::size_t kKeptTapeBytes = std::size_t(512) << 20;

/// The described forward of X0 under CONTROLS, keeping up to KEEP_BYTES of tapes. PROGRESS may
/// cancel.
DescribedForward described_forward(const model::Model& model, const Matrix& x0,
                                   const model::RunControls& controls, Progress* progress = nullptr,
                                   std::size_t keep_bytes = kKeptTapeBytes);

/// described_forward for a logit at POSITION alone: the last layer leaves only that row (its
/// other rows' attention output and feed-forward block feed nothing the logit reads), so
/// inputs.back() is one row.
DescribedForward described_forward_at(const model::Model& model, const Matrix& x0,
                                      const model::RunControls& controls, Index position,
                                      Progress* progress = nullptr);

/// logit_gradient from FORWARD, described_forward's of x0 = FORWARD.inputs[0] under CONTROLS.
LogitGradient logit_gradient_from(const model::Model& model, DescribedForward forward,
                                  const model::RunControls& controls, Index position,
                                  std::int32_t target, bool attention_x_gradient = false,
                                  Progress* progress = nullptr);

/// The described forward alone: TARGET's logit at POSITION for X0.
double described_logit(const model::Model& model, const Matrix& x0,
                       const model::RunControls& controls, Index position, std::int32_t target);

/// The token-level gradient methods of one prediction.
struct GradientScores {
    std::vector<double> saliency;              ///< ‖g_i‖₂
    std::vector<double> input_x_gradient;      ///< Σ_d x0·g
    std::vector<double> integrated_gradients;  ///< Σ_d x0 · mean_k g(α_k x0), α_k = (k − ½)/M
    double ig_delta = 0;                       ///< Σ_i IG_i − (logit(x0) − logit(0))
    std::vector<Matrix> attention_x_gradient;  ///< as LogitGradient's
    double logit = 0;                          ///< the described forward's logit at x0
};

/// Which gradient methods to compute, and IG's steps.
struct GradientAsk {
    bool gradient = false;  ///< saliency and input × gradient
    bool integrated = false;
    bool attention = false;
    int steps = 32;
    /// The tapes a chunk of integrated gradients' stacked steps may keep: as many steps run at
    /// once as fit it (at least one).
    std::size_t step_budget = kKeptTapeBytes;
    /// described_forward of the ids' embedding under the same controls, when the caller has it
    /// (it saves a forward; moved from); null: computed here.
    DescribedForward* forward = nullptr;
};

/// The gradient methods ASK names for the run of IDS through MODEL under CONTROLS.
GradientScores gradient_scores(const model::Model& model, const std::vector<std::int32_t>& ids,
                               const model::RunControls& controls, Index position,
                               std::int32_t target, const GradientAsk& ask,
                               Progress* progress = nullptr);

}  // namespace attn::attrib
