// AttnScope core — BERT's layers as blocks for the reverse pass: q/k/v with biases, post-norm
// residuals, GELU MLP, the masked-LM head (dense, activation, LayerNorm, decoder and its bias).
// The embedding's LayerNorm is not described: x0 is what embed returns, after it.
// GPL-3.0-or-later.
#include "attn/models/bert/model.hpp"
#include "attn/models/layer_description.hpp"
#include "attn/util/error.hpp"

namespace attn::bert {

namespace {

blocks::Activation activation_of(const std::string& act) {
    return act == "gelu" ? blocks::Activation::GeluExact : blocks::Activation::GeluTanh;
}

}  // namespace

model::LayerDescription Model::describe_layer(int l) const {
    const Config& c = config_;
    const Block& b = blocks_[std::size_t(l)];
    model::LayerDescription d;
    d.residual = blocks::Residual::PostNorm;
    d.norm1 = {model::NormOp::Kind::Layer, &b.ln1_w, &b.ln1_b, c.layer_norm_eps};
    d.norm2 = {model::NormOp::Kind::Layer, &b.ln2_w, &b.ln2_b, c.layer_norm_eps};
    model::AttentionOp& a = d.attention;
    a.q = {&b.q_w, &b.q_b, false};
    a.k = {&b.k_w, &b.k_b, false};
    a.v = {&b.v_w, &b.v_b, false};
    a.o = {&b.o_w, &b.o_b, false};
    a.heads = a.kv_heads = c.heads;
    a.head_dim = c.hidden / c.heads;
    d.mlp.up = {&b.in_w, &b.in_b, false};
    d.mlp.down = {&b.out_w, &b.out_b, false};
    d.mlp.act = activation_of(c.hidden_act);
    return d;
}

model::OutputDescription Model::describe_output() const {
    if (!has_head_)
        throw ArgumentError(
            "this BERT folder has no masked-LM head (cls.predictions): no logit to explain");
    model::OutputDescription o;
    o.transform = {&head_w_, &head_b_, false};
    o.transform_act = activation_of(config_.hidden_act);
    o.transform_norm = {model::NormOp::Kind::Layer, &head_ln_w_, &head_ln_b_,
                        config_.layer_norm_eps};
    o.unembedding = tied_ ? &word_ : &decoder_w_;
    o.bias = &decoder_b_;
    return o;
}

}  // namespace attn::bert
