// AttnScope core — GPT-NeoX's layers as blocks for the reverse pass: LayerNorm, fused per-head
// q/k/v, partial rotary positions, parallel or sequential residuals. GPL-3.0-or-later.
#include "attn/models/gpt_neox/model.hpp"
#include "attn/models/layer_description.hpp"

namespace attn::gpt_neox {

namespace {

model::LinearOp neox_op(const blocks::TensorLinear& lin) {
    return {&lin.w, lin.has_bias ? &lin.b : nullptr, false};
}

}  // namespace

model::LayerDescription Model::describe_layer(int l) const {
    const Config& c = config_;
    const Block& b = blocks_[std::size_t(l)];
    model::LayerDescription d;
    d.residual = c.parallel ? blocks::Residual::Parallel : blocks::Residual::PreNorm;
    d.norm1 = {model::NormOp::Kind::Layer, &b.ln1_w, &b.ln1_b, c.layer_norm_eps};
    d.norm2 = {model::NormOp::Kind::Layer, &b.ln2_w, &b.ln2_b, c.layer_norm_eps};
    model::AttentionOp& a = d.attention;
    a.qkv = neox_op(b.qkv);
    a.layout = blocks::FusedQkv::PerHead;
    a.o = neox_op(b.dense);
    a.heads = a.kv_heads = c.heads;
    a.head_dim = c.head_dim;
    a.inv_freq = &inv_freq_;
    d.mlp.up = neox_op(b.up);
    d.mlp.down = neox_op(b.down);
    d.mlp.act = c.act;
    return d;
}

model::OutputDescription Model::describe_output() const {
    model::OutputDescription o;
    o.final_norm = {model::NormOp::Kind::Layer, &lnf_w_, &lnf_b_, config_.layer_norm_eps};
    o.unembedding = config_.tied ? &embed_ : &head_;
    return o;
}

}  // namespace attn::gpt_neox
