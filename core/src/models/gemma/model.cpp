// AttnScope core — Gemma 2 and Gemma 3 text run natively, a composition of blocks: embeddings
// × √d, (1 + w) RMSNorm before and after attention and the feed-forward (sandwich residuals),
// grouped-query attention scaled by query_pre_attn_scalar^−½ and soft-capped, Gemma 3's q/k
// norms, rotary positions of each layer's kind, GeGLU, the tied head soft-capped.
// GPL-3.0-or-later.
#include "attn/models/gemma/model.hpp"

#include <cmath>

#include "../cached_heads.hpp"
#include "../family_parts.hpp"
#include "../open_tokenizer.hpp"
#include "attn/blocks/embeddings.hpp"
#include "attn/blocks/residual.hpp"
#include "attn/util/error.hpp"

namespace attn::gemma {

std::shared_ptr<Model> Model::open(const std::string& dir) {
    Config c = read_config(dir + "/config.json");
    auto w = std::make_unique<model::Weights>(dir, model::Keep::AsStored);
    // Gemma2ForCausalLM: "model."; a Gemma 3 folder's language model under one of two prefixes.
    std::string p;
    for (const char* candidate : {"model.", "", "language_model.model.", "model.language_model."})
        if (w->find(std::string(candidate) + "embed_tokens.weight")) {
            p = candidate;
            break;
        }
    const Names names{p, "post_attention_layernorm", "pre_feedforward_layernorm"};
    return assemble(std::move(c), std::move(w), dir, names, blocks::Gain::OnePlusW);
}

std::shared_ptr<Model> Model::assemble(Config config, std::unique_ptr<model::Weights> weights,
                                       const std::string& dir, const Names& names,
                                       blocks::Gain gain) {
    auto m = std::make_shared<Model>();
    m->config_ = std::move(config);
    m->weights_ = std::move(weights);
    m->gain_ = gain;
    const Config& c = m->config_;
    const model::Weights& w = *m->weights_;
    m->inv_freq_ = blocks::rope_frequencies(c.rope);
    m->local_inv_freq_ = blocks::rope_frequencies(c.local_rope);
    model::ModelInfo& info = m->info_;
    info.family = c.model_type;
    info.display = c.model_type == "gemma2" ? "Gemma 2" : "Gemma 3";
    model::set_decoder_info(info, c, w);
    info.softcap = c.attn_softcap > 0.f;
    // Each block's output is normalised before it joins the residual stream: the logits do not
    // split into the heads' direct terms.
    info.pre_norm = false;
    const std::string& p = names.prefix;
    const std::string lm_prefix = p.ends_with("model.") ? p.substr(0, p.size() - 6) : "";
    const std::string head_name = lm_prefix + "lm_head.weight";
    for (const auto& [name, e] : w.tensors())
        if (name.starts_with(p) || (!c.tied && name == head_name))
            info.parameters += e.info->count();
    info.folder = dir;
    info.layer_prefix = p + "layers.";
    const model::DecoderWidths n = model::decoder_widths(c);
    const auto read = [&](const std::string& b, Block& blk) {
        blk.input_norm = w.get(b + "input_layernorm.weight", 1, n.d);
        blk.post_attn_norm = w.get(b + names.post_attention + ".weight", 1, n.d);
        blk.pre_ff_norm = w.get(b + names.pre_feedforward + ".weight", 1, n.d);
        blk.post_ff_norm = w.get(b + "post_feedforward_layernorm.weight", 1, n.d);
        if (c.qk_norm) {
            blk.q_norm = w.get(b + "self_attn.q_norm.weight", 1, n.hd);
            blk.k_norm = w.get(b + "self_attn.k_norm.weight", 1, n.hd);
        }
        model::read_qkv(w, b, n, c.attention_bias, blk);
        blk.o = model::read_linear(w, b + "self_attn.o_proj", n.d, n.qd, c.attention_bias);
        blk.gate = model::read_linear(w, b + "mlp.gate_proj", n.ff, n.d, false);
        blk.up = model::read_linear(w, b + "mlp.up_proj", n.ff, n.d, false);
        blk.down = model::read_linear(w, b + "mlp.down_proj", n.d, n.ff, false);
    };
    model::read_decoder_tensors(w, c, p, m->embed_, m->norm_, m->blocks_, read);
    if (!c.tied)
        m->lm_head_ = model::read_output_head(w, head_name, c.vocab, n.d,
                                              "a base model without its output head?");
    return m;
}

Matrix Model::embed(const std::vector<std::int32_t>& ids, Index first) const {
    // transformers multiplies by √hidden_size rounded to the activations' type (float32 here).
    blocks::EmbeddingSpec<FloatTensor, float> spec{&embed_};
    spec.scale = float(std::sqrt(double(config_.hidden)));
    return blocks::embed<float>(spec, ids, {}, first, config_.hidden);
}

AttentionParams Model::layer_params(int l) const {
    AttentionParams p = model::Model::layer_params(l);
    p.scale_factor = float(1.0 / std::sqrt(config_.query_pre_attn_scalar));
    p.softcap = config_.attn_softcap;
    if (config_.window_layers[std::size_t(l)] && config_.sliding_window > 0) {
        p.mask.kind = MaskKind::CausalWindow;
        p.mask.window = config_.sliding_window;
    }
    return p;
}

void Model::layer(int l, Matrix& x, Index first, const model::LayerAttention* past,
                  const model::LayerControls& controls, model::LayerAttention& out,
                  model::Hooks& hooks) const {
    const Config& c = config_;
    const Block& b = blocks_[std::size_t(l)];
    const Index m = x.rows(), hd = c.head_dim;
    const bool local = c.window_layers[std::size_t(l)];
    const auto attention = [&](const Matrix& h) {
        const Matrix q = b.q(h), k = b.k(h), v = b.v(h);
        const blocks::RopeTable<float> table =
            blocks::rope_table<float>(local ? local_inv_freq_ : inv_freq_, first, m);
        // A head's new rows: Gemma 3's (1 + w) norm over head_dim, then rotary positions.
        const auto rows = [&](Index head, blocks::Part part) {
            const bool query = part == blocks::Part::Q;
            Matrix t = (query ? q : part == blocks::Part::K ? k : v).middleCols(head * hd, hd);
            if (part == blocks::Part::V) return t;
            if (c.qk_norm) t = norm(t, query ? b.q_norm : b.k_norm);
            if (controls.rotary) blocks::rotate_half(t, table);
            return t;
        };
        return Matrix(b.o(model::attend_cached_heads(rows, c.heads, c.kv_heads, hd, m, first, past,
                                                     controls.params, l, hooks, out)));
    };
    // The hooks see what each block adds to the residual stream: its output after the post-norm.
    const auto post_attention = [&](const Matrix& t) {
        Matrix y = norm(t, b.post_attn_norm);
        hooks.attn_out(l, first, y);
        return y;
    };
    blocks::sandwich<float>(
        x, [&](const Matrix& t) { return norm(t, b.input_norm); }, attention, post_attention);
    // GeGLU: gelu_tanh(gate) ⊙ up.
    const auto mlp = [&](const Matrix& h) {
        return Matrix(b.down(blocks::gated<float>(b.gate(h), b.up(h), c.act)));
    };
    const auto post_feedforward = [&](const Matrix& t) {
        Matrix y = norm(t, b.post_ff_norm);
        hooks.mlp_out(l, first, y);
        return y;
    };
    blocks::sandwich<float>(
        x, [&](const Matrix& t) { return norm(t, b.pre_ff_norm); }, mlp, post_feedforward);
}

Vector Model::logits(const Matrix& x) const {
    const Matrix last = norm(x, norm_);
    const FloatTensor& head = config_.tied ? embed_ : lm_head_;
    Vector out = head.mul_t(last.topRows(1)).transpose();
    if (config_.final_softcap > 0.f) {
        const float cap = config_.final_softcap;
        out = (cap * (out.array() / cap).tanh()).matrix();
    }
    return out;
}

Matrix Model::head_to_residual(int l, int h, const Matrix& z) const {
    return model::head_through(blocks_[std::size_t(l)].o, h, config_.head_dim, z);
}

Vector Model::attention_bias(int l) const {
    return model::bias_or_zero(blocks_[std::size_t(l)].o, config_.hidden);
}

model::Model::FrozenNorm Model::final_norm(const Matrix& x) const {
    return model::frozen_final_norm(blocks::freeze_rms_norm<float>(
        x.topRows(1), norm_.matrix().row(0), config_.rms_norm_eps, gain_));
}

Vector Model::unembedding(std::int32_t token, float* bias) const {
    return model::tied_head_row(config_.tied, embed_, lm_head_, token, bias);
}

model::ModelFolder open_folder(const std::string& dir) {
    return model::open_with_tokenizer<Model>(dir);
}

}  // namespace attn::gemma
