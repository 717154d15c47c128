// AttnScope core — a layer as the blocks it runs, with their weights: what each family states
// once (Model::describe_layer, describe_output) so that the reverse pass
// (attribution/reverse_pass) is written once for every family, never per family.
// GPL-3.0-or-later.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attn/blocks/mlp.hpp"
#include "attn/blocks/norms.hpp"
#include "attn/blocks/projections.hpp"
#include "attn/blocks/residual.hpp"
#include "attn/blocks/rotary.hpp"
#include "attn/weights/safetensors.hpp"

namespace attn::model {

/// A norm over the last axis: none, LayerNorm (gain, bias) or RMSNorm (gain w or 1 + w).
struct NormOp {
    enum class Kind { None, Layer, Rms };
    Kind kind = Kind::None;
    const FloatTensor* w = nullptr;  ///< gain, [1, width]
    const FloatTensor* b = nullptr;  ///< LayerNorm's bias, [1, width]; null: none
    double eps = 1e-5;
    blocks::Gain gain = blocks::Gain::W;
};

/// A projection: x·Wᵀ + b with W [out, in] (Hugging Face's Linear), or x·W + b with GPT-2's
/// Conv1D layout [in, out].
struct LinearOp {
    const FloatTensor* w = nullptr;
    const FloatTensor* b = nullptr;  ///< [1, out]; null: no bias
    bool conv1d = false;             ///< W is [in, out]
};

/// The attention block: projections, per-head norms, rotary positions, grouped-query heads and
/// the output projection. The score stages (scale, temperature, mask, knockouts) come from the
/// run's controls over Model::layer_params, as the forward of record takes them.
struct AttentionOp {
    LinearOp q, k, v;  ///< separate projections, used when qkv.w is null
    LinearOp qkv;      ///< one fused projection (GPT-2's c_attn, GPT-NeoX's query_key_value)
    blocks::FusedQkv layout = blocks::FusedQkv::Blocks;
    LinearOp o;
    int heads = 0, kv_heads = 0, head_dim = 0;
    NormOp q_norm, k_norm;  ///< per head over head_dim, before rotary positions (Qwen3)
    /// Over the whole projections (all heads at once), before the heads split (OLMo-2).
    NormOp q_norm_whole, k_norm_whole;
    /// Rotary positions' inverse frequencies (rotate_half, rotary_dim = 2 · size, the rest of a
    /// head unrotated); null: no rotary positions.
    const std::vector<double>* inv_freq = nullptr;
    /// Frequencies that depend on the run's length (Phi-3's longrope): used instead of
    /// inv_freq when set.
    const blocks::RopeSpec* rope_by_length = nullptr;
    double rope_scale = 1.0;  ///< cos and sin scaled (longrope's attention factor)
    /// The family's own scaling inside its layer (GPT-2's scale_attn_by_inverse_layer_idx):
    /// scaled false turns the scale off, scale_dk replaces head_dim in 1/√d_k.
    bool scaled = true;
    std::optional<float> scale_dk;
};

/// The feed-forward block: down(act(up(x))), or down(act(gate(x)) ⊙ up(x)) when gated.
struct MlpOp {
    LinearOp up, gate, down;  ///< gate.w null: not gated
    LinearOp gate_up;         ///< one fused projection, gate's rows then up's (Phi-3); w null: none
    blocks::Activation act = blocks::Activation::GeluExact;
};

/// A sparse mixture of experts (Mixtral's): each position's top_k experts by the router's
/// softmax, their outputs weighted by the softmax of the chosen logits. The reverse holds the
/// choice fixed (a constant, as autograd sees argsort) and lets the weights' gradient flow.
struct MoeOp {
    LinearOp router;             ///< [experts, d]
    std::vector<MlpOp> experts;  ///< empty: the layer's dense mlp
    int top_k = 0;
};

/// One layer: how the blocks are wired into the residual stream (pre-norm: x + f(n₁(x)) then
/// x + g(n₂(x)); post-norm: n₁(x + f(x)) then n₂(x + g(x)); parallel: x + f(n₁(x)) + g(n₂(x));
/// sandwich: x + p₁(f(n₁(x))) then x + p₂(g(n₂(x)))).
struct LayerDescription {
    blocks::Residual residual = blocks::Residual::PreNorm;
    NormOp norm1, norm2;
    NormOp post1, post2;  ///< sandwich: the norms of each block's output (Gemma, OLMo-2)
    AttentionOp attention;
    MlpOp mlp;
    MoeOp moe;  ///< experts set: the feed-forward block instead of mlp
};

/// From the last residual row to the logits: the final norm, then (BERT's masked-LM head) a
/// transform (dense, activation, norm), then the unembedding rows and their bias.
struct OutputDescription {
    NormOp final_norm;
    LinearOp transform;  ///< w null: none
    blocks::Activation transform_act = blocks::Activation::GeluExact;
    NormOp transform_norm;
    const FloatTensor* unembedding = nullptr;  ///< [vocab, d]: row t is token t's
    const FloatTensor* bias = nullptr;         ///< [1, vocab]; null: none
    float softcap = 0.f;  ///< > 0: the logit becomes softcap · tanh(logit / softcap) (Gemma 2)
};

/// The refusal of a family that has no description (the default of describe_layer).
std::string no_description(const std::string& family);

/// LIN (Hugging Face's Linear; its bias when it has one) as a projection of a description.
LinearOp linear_op(const blocks::TensorLinear& lin);

/// Grouped-query attention over separate q/k/v/o projections (Hugging Face's Linear): HEADS
/// query heads reading KV_HEADS key–value groups of HEAD_DIM each; no norms, no rotary yet.
AttentionOp grouped_attention(const blocks::TensorLinear& q, const blocks::TensorLinear& k,
                              const blocks::TensorLinear& v, const blocks::TensorLinear& o,
                              int heads, int kv_heads, int head_dim);

/// An RMSNorm of gain W (w or 1 + w by GAIN) and EPS.
NormOp rms_op(const FloatTensor& w, double eps, blocks::Gain gain = blocks::Gain::W);

}  // namespace attn::model
