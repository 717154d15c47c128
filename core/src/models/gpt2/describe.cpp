// AttnScope core — GPT-2's layers as blocks for the reverse pass: LayerNorm, fused Conv1D q/k/v,
// GELU-tanh MLP, pre-norm residuals, the tied output head. GPL-3.0-or-later.
#include "attn/models/gpt2/model.hpp"
#include "attn/models/layer_description.hpp"

namespace attn::gpt2 {

model::LayerDescription Model::describe_layer(int l) const {
    const Config& c = config_;
    const Block& b = blocks_[std::size_t(l)];
    const auto ln = [&](const FloatTensor& w, const FloatTensor& bias) {
        return model::NormOp{model::NormOp::Kind::Layer, &w, &bias, c.layer_norm_epsilon};
    };
    model::LayerDescription d;
    d.residual = blocks::Residual::PreNorm;
    d.norm1 = ln(b.ln1_w, b.ln1_b);
    d.norm2 = ln(b.ln2_w, b.ln2_b);
    model::AttentionOp& a = d.attention;
    a.qkv = {&b.attn_w, &b.attn_b, true};
    a.layout = blocks::FusedQkv::Blocks;
    a.o = {&b.proj_w, &b.proj_b, true};
    a.heads = a.kv_heads = c.n_head;
    a.head_dim = c.n_embd / c.n_head;
    // As layer(): ÷ √d_k (scale_attn_weights), then ÷ (l + 1) (by inverse layer index).
    const float by_layer = c.scale_attn_by_inverse_layer_idx ? float(l + 1) : 1.f;
    a.scaled = c.scale_attn_weights || c.scale_attn_by_inverse_layer_idx;
    if (a.scaled)
        a.scale_dk = (c.scale_attn_weights ? float(a.head_dim) : 1.f) * by_layer * by_layer;
    d.mlp.up = {&b.fc_w, &b.fc_b, true};
    d.mlp.down = {&b.mlp_proj_w, &b.mlp_proj_b, true};
    d.mlp.act = blocks::Activation::GeluTanh;
    return d;
}

model::OutputDescription Model::describe_output() const {
    model::OutputDescription o;
    o.final_norm = {model::NormOp::Kind::Layer, &lnf_w_, &lnf_b_, config_.layer_norm_epsilon};
    o.unembedding = &wte_;
    return o;
}

}  // namespace attn::gpt2
