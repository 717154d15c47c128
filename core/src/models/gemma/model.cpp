// AttnScope core — Gemma 2 and Gemma 3 text run natively, a composition of blocks: embeddings
// × √d, (1 + w) RMSNorm before and after attention and the feed-forward (sandwich residuals),
// grouped-query attention scaled by query_pre_attn_scalar^−½ and soft-capped, Gemma 3's q/k
// norms, rotary positions of each layer's kind, GeGLU, the tied head soft-capped.
// GPL-3.0-or-later.
#include "attn/models/gemma/model.hpp"

#include <cmath>

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
    info.layers = c.layers;
    info.heads = c.heads;
    info.kv_heads = c.kv_heads;
    info.d_model = c.hidden;
    info.head_dim = c.head_dim;
    info.vocab = c.vocab;
    info.max_positions = c.max_positions;
    info.rotary = true;
    info.softcap = c.attn_softcap > 0.f;
    // Each block's output is normalised before it joins the residual stream: the logits do not
    // split into the heads' direct terms.
    info.pre_norm = false;
    info.dtype = w.dtype();
    info.file_bytes = w.file_bytes();
    const std::string& p = names.prefix;
    const std::string lm_prefix = p.ends_with("model.") ? p.substr(0, p.size() - 6) : "";
    const std::string head_name = lm_prefix + "lm_head.weight";
    for (const auto& [name, e] : w.tensors())
        if (name.starts_with(p) || (!c.tied && name == head_name))
            info.parameters += e.info->count();
    info.folder = dir;
    info.layer_prefix = p + "layers.";
    const Index d = c.hidden, hd = c.head_dim, qd = Index(c.heads) * hd,
                kvd = Index(c.kv_heads) * hd, ff = c.intermediate;
    const auto linear = [&](const std::string& name, Index out, Index in, bool bias) {
        return model::read_linear(w, name, out, in, bias);
    };
    m->embed_ = w.get(p + "embed_tokens.weight", c.vocab, d);
    m->norm_ = w.get(p + "norm.weight", 1, d);
    for (int l = 0; l < c.layers; ++l) {
        const std::string b = p + "layers." + std::to_string(l) + ".";
        Block blk;
        blk.input_norm = w.get(b + "input_layernorm.weight", 1, d);
        blk.post_attn_norm = w.get(b + names.post_attention + ".weight", 1, d);
        blk.pre_ff_norm = w.get(b + names.pre_feedforward + ".weight", 1, d);
        blk.post_ff_norm = w.get(b + "post_feedforward_layernorm.weight", 1, d);
        if (c.qk_norm) {
            blk.q_norm = w.get(b + "self_attn.q_norm.weight", 1, hd);
            blk.k_norm = w.get(b + "self_attn.k_norm.weight", 1, hd);
        }
        blk.q = linear(b + "self_attn.q_proj", qd, d, c.attention_bias);
        blk.k = linear(b + "self_attn.k_proj", kvd, d, c.attention_bias);
        blk.v = linear(b + "self_attn.v_proj", kvd, d, c.attention_bias);
        blk.o = linear(b + "self_attn.o_proj", d, qd, c.attention_bias);
        blk.gate = linear(b + "mlp.gate_proj", ff, d, false);
        blk.up = linear(b + "mlp.up_proj", ff, d, false);
        blk.down = linear(b + "mlp.down_proj", d, ff, false);
        m->blocks_.push_back(std::move(blk));
    }
    if (!c.tied)
        m->lm_head_ = model::read_output_head(w, head_name, c.vocab, d,
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
    const Index m = x.rows(), n = first + m, hd = c.head_dim, group = c.heads / c.kv_heads;
    const bool local = c.window_layers[std::size_t(l)];
    const auto attention = [&](const Matrix& h) {
        const Matrix q = b.q(h), k = b.k(h), v = b.v(h);
        const blocks::RopeTable<float> table =
            blocks::rope_table<float>(local ? local_inv_freq_ : inv_freq_, first, m);
        // A head's new rows: Gemma 3's (1 + w) norm over head_dim, then rotary positions.
        const auto prepare = [&](const Matrix& all, Index head, const FloatTensor& qk_norm) {
            Matrix t = all.middleCols(head * hd, hd);
            if (c.qk_norm) t = norm(t, qk_norm);
            if (controls.rotary) blocks::rotate_half(t, table);
            return t;
        };
        const auto whole = [&](const std::vector<Matrix>* old, Index head, const Matrix& rows) {
            Matrix t(n, hd);
            if (first > 0) t.topRows(first) = (*old)[std::size_t(head)].topRows(first);
            t.bottomRows(m) = rows;
            return t;
        };
        Matrix merged(m, Index(c.heads) * hd), z;
        std::vector<Matrix> kg, vg;  // each key/value group's rows, shared by its query heads
        for (Index g = 0; g < c.kv_heads; ++g) {
            kg.push_back(prepare(k, g, b.k_norm));
            vg.push_back(v.middleCols(g * hd, hd));
        }
        for (Index hq = 0; hq < c.heads; ++hq) {
            const std::size_t g = std::size_t(hq / group);
            out.q.push_back(whole(past ? &past->q : nullptr, hq, prepare(q, hq, b.q_norm)));
            out.k.push_back(whole(past ? &past->k : nullptr, hq, kg[g]));
            out.v.push_back(whole(past ? &past->v : nullptr, hq, vg[g]));
            out.heads.push_back(model::attend_head(out.q.back(), out.k.back(), out.v.back(),
                                                   controls.params, l, int(hq), first, hooks, z));
            merged.middleCols(hq * hd, hd) = z;
        }
        return Matrix(b.o(merged));
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
    if (bias) *bias = 0.f;
    const FloatTensor& head = config_.tied ? embed_ : lm_head_;
    return head.row(token);
}

model::ModelFolder open_folder(const std::string& dir) {
    return model::open_with_tokenizer<Model>(dir);
}

}  // namespace attn::gemma
