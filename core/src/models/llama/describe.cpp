// AttnScope core — the Llama family's layers as blocks for the reverse pass: RMSNorm,
// grouped-query attention with rotary positions (Phi-3's fused q/k/v and longrope, Qwen3's
// per-head and OLMo-2's whole-projection q/k norms), SwiGLU (Phi-3's fused gate_up, Mixtral's
// experts), pre-norm residuals or OLMo-2's norms after each block, the output head.
// GPL-3.0-or-later.
#include "attn/models/layer_description.hpp"
#include "attn/models/llama/model.hpp"

namespace attn::llama {

model::LayerDescription Model::describe_layer(int l) const {
    const Config& c = config_;
    const Block& b = blocks_[std::size_t(l)];
    const auto rms = [&](const FloatTensor& w) { return model::rms_op(w, c.rms_norm_eps); };
    model::LayerDescription d;
    model::AttentionOp& a = d.attention;
    if (c.post_norms) {
        // OLMo-2: x + norm(attn(x)), then x + norm(mlp(x)): a sandwich without its first norms.
        d.residual = blocks::Residual::Sandwich;
        d.post1 = rms(b.post_norm);
        d.post2 = rms(b.ff_norm);
    } else {
        d.residual = blocks::Residual::PreNorm;
        d.norm1 = rms(b.input_norm);
        d.norm2 = rms(b.post_norm);
    }
    a = model::grouped_attention(b.q, b.k, b.v, b.o, c.heads, c.kv_heads, c.head_dim);
    if (c.fused_qkv) {
        // Phi-3: every query head's rows, then the keys', then the values'.
        a.q = a.k = a.v = {};
        a.qkv = model::linear_op(b.qkv);
        a.layout = blocks::FusedQkv::Blocks;
    }
    if (c.qk_norm) {
        a.q_norm = rms(b.q_norm);
        a.k_norm = rms(b.k_norm);
    }
    if (c.qk_norm_whole) {
        a.q_norm_whole = rms(b.q_norm);
        a.k_norm_whole = rms(b.k_norm);
    }
    a.inv_freq = &inv_freq_;
    if (c.rope.scaling == blocks::RopeScaling::LongRope) a.rope_by_length = &c.rope;
    a.rope_scale = c.rope.attention_factor;
    if (c.experts > 0) {
        d.moe.router = model::linear_op(b.router);
        d.moe.top_k = c.experts_per_token;
        for (int e = 0; e < c.experts; ++e) {
            const std::size_t i = std::size_t(e);
            d.moe.experts.push_back({model::linear_op(b.w3[i]),
                                     model::linear_op(b.w1[i]),
                                     model::linear_op(b.w2[i]),
                                     {},
                                     blocks::Activation::Silu});
        }
    } else if (c.fused_gate_up) {
        d.mlp.gate_up = model::linear_op(b.gate_up);
        d.mlp.down = model::linear_op(b.down);
    } else {
        d.mlp.gate = model::linear_op(b.gate);
        d.mlp.up = model::linear_op(b.up);
        d.mlp.down = model::linear_op(b.down);
    }
    d.mlp.act = blocks::Activation::Silu;
    return d;
}

model::OutputDescription Model::describe_output() const {
    model::OutputDescription o;
    o.final_norm = model::rms_op(norm_, config_.rms_norm_eps);
    o.unembedding = config_.tied ? &embed_ : &lm_head_;
    return o;
}

}  // namespace attn::llama
