// AttnScope core — the Llama family's layers as blocks for the reverse pass: RMSNorm,
// grouped-query attention with rotary positions (and Qwen3's per-head norms), SwiGLU, pre-norm
// residuals, the output head. GPL-3.0-or-later.
#include "attn/models/layer_description.hpp"
#include "attn/models/llama/model.hpp"
#include "attn/util/error.hpp"

namespace attn::llama {

namespace {

model::LinearOp llama_op(const blocks::TensorLinear& lin) {
    return {&lin.w, lin.has_bias ? &lin.b : nullptr, false};
}

}  // namespace

model::LayerDescription Model::describe_layer(int l) const {
    const Config& c = config_;
    // Phi-3's fused projections and longrope, OLMo-2's norms after the blocks and Mixtral's
    // experts are steps the reverse pass does not have: refused rather than differentiated wrong.
    if (c.fused_qkv || c.fused_gate_up || c.qk_norm_whole || c.post_norms || c.experts > 0 ||
        !c.rope.short_factors.empty())
        throw ArgumentError(model::no_description(info_.display));
    const Block& b = blocks_[std::size_t(l)];
    const auto rms = [&](const FloatTensor& w) {
        return model::NormOp{model::NormOp::Kind::Rms, &w, nullptr, c.rms_norm_eps};
    };
    model::LayerDescription d;
    d.residual = blocks::Residual::PreNorm;
    d.norm1 = rms(b.input_norm);
    d.norm2 = rms(b.post_norm);
    model::AttentionOp& a = d.attention;
    a.q = llama_op(b.q);
    a.k = llama_op(b.k);
    a.v = llama_op(b.v);
    a.o = llama_op(b.o);
    a.heads = c.heads;
    a.kv_heads = c.kv_heads;
    a.head_dim = c.head_dim;
    if (c.qk_norm) {
        a.q_norm = rms(b.q_norm);
        a.k_norm = rms(b.k_norm);
    }
    a.inv_freq = &inv_freq_;
    d.mlp.gate = llama_op(b.gate);
    d.mlp.up = llama_op(b.up);
    d.mlp.down = llama_op(b.down);
    d.mlp.act = blocks::Activation::Silu;
    return d;
}

model::OutputDescription Model::describe_output() const {
    model::OutputDescription o;
    o.final_norm = {model::NormOp::Kind::Rms, &norm_, nullptr, config_.rms_norm_eps};
    o.unembedding = config_.tied ? &embed_ : &lm_head_;
    return o;
}

}  // namespace attn::llama
