// AttnScope core — one layer of a model's description run forward with what its reverse needs
// kept, and that reverse (the blocks' vector–Jacobian products chained as the layer wires
// them). Internal to attribution/reverse_pass. GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/blocks/attention.hpp"
#include "attn/blocks/moe.hpp"
#include "attn/blocks/rotary.hpp"
#include "attn/models/layer_description.hpp"
#include "attn/models/model.hpp"

namespace attn::attrib::detail {

/// What one head's reverse needs from its forward in one sequence: the weights, and the raw
/// scores only under a soft-cap (the output is not kept: the block's product read it).
struct HeadTape {
    blocks::HeadForward<float> f;
    bool zeroed = false, mean = false;  ///< ablated: z set to zero, or to its mean over rows
};

/// What the attention block's reverse needs. The rows may stack several sequences of n rows
/// each (integrated gradients' steps): the projections read them all at once, each sequence
/// attends only to itself.
struct AttentionTape {
    Index rows = 0, n = 0;  ///< every row, and the rows of one sequence
    /// Per sequence s and query head h (s · heads + h) / key–value group g (s · kv_heads + g),
    /// as attention read them.
    std::vector<Matrix> q, k, v;
    std::vector<Matrix> q_pre, k_pre;  ///< per head / group over every row, before the per-head
                                       ///< norm (Qwen3), else empty
    Matrix q_whole, k_whole;           ///< the projections before their whole norms (OLMo-2)
    std::vector<blocks::HeadSpec<float>> specs;  ///< per query head: one sequence's
    std::vector<HeadTape> heads;                 ///< per sequence and query head
    blocks::RopeTable<float> rope;               ///< every row's; empty when rotary is off
};

/// What the MLP block's reverse needs (input gradients only: not its input).
struct MlpTape {
    Matrix up, gate;
};

/// What a mixture of experts' reverse needs: the routing (held fixed), and per expert the rows
/// routed to it, which choice of each row it is, its tape and its output.
struct MoeTape {
    blocks::Routing<float> routing;
    std::vector<std::vector<std::pair<Index, Index>>> rows;  ///< per expert: (row, choice)
    std::vector<MlpTape> tapes;
    std::vector<Matrix> outs;
};

/// One layer's forward with its tapes: the inputs of its norms and blocks.
struct LayerTape {
    Matrix x;       ///< the layer's input
    Matrix u1, x1;  ///< after the attention block: post-norm's pre-norm sum u1, then x1
    Matrix u2;      ///< post-norm's sum before the second norm
    Matrix a, m;    ///< sandwich: the blocks' outputs before their own norms
    AttentionTape attention;
    MlpTape mlp;
    MoeTape moe;
};

/// The attention of layer L as the run does it: the description's scaling over the run's
/// controls (temperature, scale, mask, knockouts, ablation).
struct LayerContext {
    const model::LayerDescription* desc = nullptr;
    model::LayerControls controls;
    const model::Interventions* interventions = nullptr;
    int layer = 0;
    Index sequence = 0;  ///< the rows of one sequence among the stacked rows; 0: every row
    /// Non-empty: the layer's output is these rows alone (the last layer: the rows the logit
    /// reads); the input and its gradient still every row.
    std::vector<Index> only;
};

/// The context of layer L of MODEL under CONTROLS (DESC must outlive it).
LayerContext layer_context(const model::Model& model, const model::LayerDescription& desc,
                           const model::RunControls& controls, int l);

/// Layer forward from X; TAPE (optional) keeps what the reverse needs.
Matrix layer_forward(const LayerContext& c, const Matrix& x, LayerTape* tape);

/// The layer's reverse: the input's gradient for the output's DY. AXG (optional) gets each
/// head's weights ⊙ their gradient.
Matrix layer_backward(const LayerContext& c, const LayerTape& tape, const Matrix& dy,
                      std::vector<Matrix>* axg);

/// The attention block on H (rows stacking sequences of C.sequence), keeping its tape in T.
Matrix attention_forward(const LayerContext& c, const Matrix& h, AttentionTape& t);
/// Its reverse: H's gradient for the output's DOUT; AXG (optional) as layer_backward's.
Matrix attention_backward(const LayerContext& c, const AttentionTape& t, const Matrix& dout,
                          std::vector<Matrix>* axg);

/// The bytes T holds (its matrices): what keeping it costs.
std::size_t tape_bytes(const LayerTape& t);

/// The feed-forward block of D (its MLP, or its mixture of experts) on H, keeping its tape in T.
Matrix feed_forward(const model::LayerDescription& d, const Matrix& h, LayerTape& t);
/// Its reverse: H's gradient for the output's DOUT.
Matrix feed_backward(const model::LayerDescription& d, const LayerTape& t, const Matrix& dout);

/// A norm of the description applied to X, and its input's gradient at X for DY.
Matrix norm_forward(const model::NormOp& n, const Matrix& x);
Matrix norm_backward(const model::NormOp& n, const Matrix& x, const Matrix& dy);
/// A projection of the description applied to X, and its input's gradient for DY.
Matrix linear_forward(const model::LinearOp& op, const Matrix& x);
Matrix linear_backward(const model::LinearOp& op, const Matrix& dy);

}  // namespace attn::attrib::detail
