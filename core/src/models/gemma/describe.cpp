// AttnScope core — the Gemma family's layers as blocks for the reverse pass: (1 + w) RMSNorms
// before and after each block (sandwich residuals), grouped-query attention with the family's
// scale and soft-cap (layer_params), Gemma 3's q/k norms, each layer kind's rotary positions,
// GeGLU, and the tied head soft-capped. GPL-3.0-or-later.
#include "attn/models/gemma/model.hpp"
#include "attn/models/layer_description.hpp"

namespace attn::gemma {

model::LayerDescription Model::describe_layer(int l) const {
    const Config& c = config_;
    const Block& b = blocks_[std::size_t(l)];
    const auto rms = [&](const FloatTensor& w) { return model::rms_op(w, c.rms_norm_eps, gain_); };
    model::LayerDescription d;
    d.residual = blocks::Residual::Sandwich;
    d.norm1 = rms(b.input_norm);
    d.post1 = rms(b.post_attn_norm);
    d.norm2 = rms(b.pre_ff_norm);
    d.post2 = rms(b.post_ff_norm);
    model::AttentionOp& a = d.attention;
    a = model::grouped_attention(b.q, b.k, b.v, b.o, c.heads, c.kv_heads, c.head_dim);
    if (c.qk_norm) {
        a.q_norm = rms(b.q_norm);
        a.k_norm = rms(b.k_norm);
    }
    a.inv_freq = c.window_layers[std::size_t(l)] ? &local_inv_freq_ : &inv_freq_;
    d.mlp.gate = model::linear_op(b.gate);
    d.mlp.up = model::linear_op(b.up);
    d.mlp.down = model::linear_op(b.down);
    d.mlp.act = c.act;
    return d;
}

model::OutputDescription Model::describe_output() const {
    model::OutputDescription o;
    o.final_norm = model::rms_op(norm_, config_.rms_norm_eps, gain_);
    o.unembedding = config_.tied ? &embed_ : &lm_head_;
    o.softcap = config_.final_softcap;
    return o;
}

}  // namespace attn::gemma
