// AttnScope core — the GPT-NeoX family (Pythia) run natively, a composition of blocks: the fused
// query_key_value laid out per head, rotary positions over the first rotary_dim components of
// each head, LayerNorm with bias, GELU, the parallel or the sequential residual, an untied
// embed_out. GPL-3.0-or-later.
#include "attn/models/gpt_neox/model.hpp"

#include "../cached_heads.hpp"
#include "../family_parts.hpp"
#include "../open_tokenizer.hpp"
#include "attn/blocks/embeddings.hpp"
#include "attn/blocks/norms.hpp"
#include "attn/blocks/projections.hpp"
#include "attn/blocks/residual.hpp"
#include "attn/util/error.hpp"

namespace attn::gpt_neox {

std::shared_ptr<Model> Model::open(const std::string& dir) {
    auto m = std::make_shared<Model>();
    m->config_ = read_config(dir + "/config.json");
    m->weights_ = std::make_unique<model::Weights>(dir, model::Keep::AsStored);
    const Config& c = m->config_;
    const model::Weights& w = *m->weights_;
    m->inv_freq_ = blocks::rope_frequencies(c.rope);
    model::ModelInfo& info = m->info_;
    info.family = "gpt_neox";
    info.display = "GPT-NeoX";
    info.layers = c.layers;
    info.heads = info.kv_heads = c.heads;
    info.d_model = c.hidden;
    info.head_dim = c.head_dim;
    info.vocab = c.vocab;
    info.max_positions = c.max_positions;
    info.rotary = c.rope.rotary_dim > 0;
    info.dtype = w.dtype();
    info.file_bytes = w.file_bytes();
    // GPTNeoXForCausalLM writes "gpt_neox." before the body; old checkpoints carry the causal
    // mask and the rotary frequencies as buffers, which are no parameters.
    const std::string p = w.find("gpt_neox.embed_in.weight") ? "gpt_neox." : "";
    for (const auto& [name, e] : w.tensors())
        if (!name.ends_with("attention.bias") && !name.ends_with("attention.masked_bias") &&
            name.find("rotary_emb") == std::string::npos)
            info.parameters += e.info->count();
    info.folder = dir;
    info.layer_prefix = p + "layers.";
    const Index d = c.hidden, ff = c.intermediate;
    const auto linear = [&](const std::string& name, Index out, Index in, bool bias) {
        return model::read_linear(w, name, out, in, bias);
    };
    m->embed_ = w.get(p + "embed_in.weight", c.vocab, d);
    m->lnf_w_ = w.get(p + "final_layer_norm.weight", 1, d);
    m->lnf_b_ = w.get(p + "final_layer_norm.bias", 1, d);
    for (int l = 0; l < c.layers; ++l) {
        const std::string b = p + "layers." + std::to_string(l) + ".";
        Block blk;
        blk.ln1_w = w.get(b + "input_layernorm.weight", 1, d);
        blk.ln1_b = w.get(b + "input_layernorm.bias", 1, d);
        blk.ln2_w = w.get(b + "post_attention_layernorm.weight", 1, d);
        blk.ln2_b = w.get(b + "post_attention_layernorm.bias", 1, d);
        blk.qkv = linear(b + "attention.query_key_value", 3 * d, d, c.bias);
        blk.dense = linear(b + "attention.dense", d, d, c.bias);
        blk.up = linear(b + "mlp.dense_h_to_4h", ff, d, true);
        blk.down = linear(b + "mlp.dense_4h_to_h", d, ff, true);
        m->blocks_.push_back(std::move(blk));
    }
    if (!c.tied)
        m->head_ = model::read_output_head(w, "embed_out.weight", c.vocab, d,
                                           "a GPTNeoXModel without its output head?");
    return m;
}

Matrix Model::embed(const std::vector<std::int32_t>& ids, Index first) const {
    const blocks::EmbeddingSpec<FloatTensor, float> spec{&embed_};
    return blocks::embed<float>(spec, ids, {}, first, config_.hidden);
}

void Model::layer(int l, Matrix& x, Index first, const model::LayerAttention* past,
                  const model::LayerControls& controls, model::LayerAttention& out,
                  model::Hooks& hooks) const {
    const Config& c = config_;
    const Block& b = blocks_[std::size_t(l)];
    const Index m = x.rows(), hd = c.head_dim;
    const auto attention = [&](const Matrix& h) {
        const Matrix qkv = b.qkv(h);
        const blocks::RopeTable<float> table = blocks::rope_table<float>(inv_freq_, first, m);
        // Head h's new rows of q, k or v (query_key_value's columns head by head: [heads, 3,
        // head_dim]), q and k at their rotary positions.
        const auto rows = [&](Index head, blocks::Part part) {
            Matrix t = blocks::fused_head<float>(qkv, blocks::FusedQkv::PerHead, part, head,
                                                 c.heads, c.heads, hd);
            if (part != blocks::Part::V && controls.rotary) blocks::rotate_half(t, table);
            return t;
        };
        const Matrix attn = b.dense(model::attend_cached_heads(
            rows, c.heads, c.heads, hd, m, first, past, controls.params, l, hooks, out));
        hooks.attn_out(l, first, attn);
        return attn;
    };
    const auto mlp = [&](const Matrix& h) {
        Matrix hidden = b.up(h);
        blocks::activate(hidden, c.act);
        const Matrix mlp_out = b.down(hidden);
        hooks.mlp_out(l, first, mlp_out);
        return mlp_out;
    };
    const auto ln1 = [&](const Matrix& t) {
        return blocks::layer_norm(t, b.ln1_w, b.ln1_b, c.layer_norm_eps);
    };
    const auto ln2 = [&](const Matrix& t) {
        return blocks::layer_norm(t, b.ln2_w, b.ln2_b, c.layer_norm_eps);
    };
    if (c.parallel) {
        blocks::parallel<float>(x, ln1, attention, ln2, mlp);
    } else {
        blocks::pre_norm<float>(x, ln1, attention);
        blocks::pre_norm<float>(x, ln2, mlp);
    }
}

Vector Model::logits(const Matrix& x) const {
    const Matrix last = blocks::layer_norm(x.topRows(1), lnf_w_, lnf_b_, config_.layer_norm_eps);
    return (config_.tied ? embed_ : head_).mul_t(last).transpose();
}

Matrix Model::head_to_residual(int l, int h, const Matrix& z) const {
    return model::head_through(blocks_[std::size_t(l)].dense, h, config_.head_dim, z);
}

Vector Model::attention_bias(int l) const {
    return model::bias_or_zero(blocks_[std::size_t(l)].dense, config_.hidden);
}

model::Model::FrozenNorm Model::final_norm(const Matrix& x) const {
    return model::frozen_final_norm(blocks::freeze_layer_norm<float>(
        x.topRows(1), lnf_w_.matrix().row(0), lnf_b_.matrix().row(0), config_.layer_norm_eps));
}

Vector Model::unembedding(std::int32_t token, float* bias) const {
    return model::tied_head_row(config_.tied, embed_, head_, token, bias);
}

model::ModelFolder open_folder(const std::string& dir) {
    return model::open_with_tokenizer<Model>(dir);
}

}  // namespace attn::gpt_neox
