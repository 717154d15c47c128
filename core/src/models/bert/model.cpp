// AttnScope core — a BERT-family encoder run natively, a composition of blocks
// (embeddings with positions and token types, LayerNorm, post-norm residuals,
// GELU MLP), with attention controls inside the run. GPL-3.0-or-later.
#include "attn/models/bert/model.hpp"

#include <cmath>

#include "../cached_heads.hpp"
#include "attn/blocks/embeddings.hpp"
#include "attn/blocks/mlp.hpp"
#include "attn/blocks/norms.hpp"
#include "attn/blocks/projections.hpp"
#include "attn/blocks/residual.hpp"
#include "attn/util/error.hpp"

namespace attn::bert {

namespace {

using Tensor = model::FloatTensor;

/// x·Wᵀ + b with nn.Linear's [out, in] weight.
Matrix bert_linear(const Matrix& x, const Tensor& w, const Tensor& b) {
    return blocks::linear<float>(x, blocks::OutIn<Eigen::Map<const Matrix>>{w.matrix()},
                                 b.matrix().row(0));
}

/// BERT's activation: "gelu" is the exact x·Φ(x) (erf), the others GPT-2's tanh
/// approximation.
blocks::Activation bert_activation(const std::string& act) {
    return act == "gelu" ? blocks::Activation::GeluExact : blocks::Activation::GeluTanh;
}

}  // namespace

std::shared_ptr<Model> Model::open(const std::string& dir, std::optional<std::int32_t> sep) {
    auto m = std::make_shared<Model>();
    m->config_ = read_config(dir + "/config.json");
    m->sep_ = sep;
    m->file_ = std::make_unique<model::SafetensorsFile>(dir + "/model.safetensors");
    const Config& c = m->config_;
    const model::SafetensorsFile& f = *m->file_;
    model::ModelInfo& info = m->info_;
    info.family = "bert";
    info.display = "BERT";
    info.layers = c.layers;
    info.heads = info.kv_heads = c.heads;
    info.d_model = c.hidden;
    info.head_dim = c.hidden / c.heads;
    info.vocab = c.vocab;
    info.max_positions = c.positions;
    info.causal = false;
    info.pre_norm = false;
    info.dtype.clear();
    for (const auto& [name, t] : f.tensors()) {
        // position_ids (an integer buffer) and a decoder tied to the embedding are
        // no parameters.
        if (t.dtype == model::DType::Other || name == "cls.predictions.decoder.weight") continue;
        info.parameters += t.count();
        if (info.dtype.empty() || t.dtype_name != "F32") info.dtype = t.dtype_name;
    }
    if (info.dtype.empty()) info.dtype = "F32";
    info.file_bytes = double(f.file_size());
    // BertForMaskedLM writes the encoder with a "bert." prefix beside its "cls."
    // head; BertModel writes it without. Old checkpoints call LayerNorm's weight
    // and bias gamma and beta.
    const std::string prefix = f.find("bert.embeddings.word_embeddings.weight") ? "bert." : "";
    info.folder = dir;
    info.layer_prefix = prefix + "encoder.layer.";
    const auto get = [&](const std::string& name, Index rows, Index cols) {
        const model::TensorInfo* t = f.find(name);
        std::string found = name;
        if (!t && name.ends_with("LayerNorm.weight"))
            t = f.find(found = name.substr(0, name.size() - 6) + "gamma");
        if (!t && name.ends_with("LayerNorm.bias"))
            t = f.find(found = name.substr(0, name.size() - 4) + "beta");
        if (!t) throw FormatError(f.path() + ": tensor \"" + name + "\" is missing");
        return Tensor(*t, rows, cols, f.path() + ": tensor \"" + found + "\"");
    };
    const Index d = c.hidden, inner = c.intermediate;
    const std::string e = prefix + "embeddings.";
    m->word_ = get(e + "word_embeddings.weight", c.vocab, d);
    m->position_ = get(e + "position_embeddings.weight", c.positions, d);
    m->type_ = get(e + "token_type_embeddings.weight", c.type_vocab, d);
    m->emb_ln_w_ = get(e + "LayerNorm.weight", 1, d);
    m->emb_ln_b_ = get(e + "LayerNorm.bias", 1, d);
    for (int l = 0; l < c.layers; ++l) {
        const std::string p = prefix + "encoder.layer." + std::to_string(l) + ".";
        const std::string a = p + "attention.";
        m->blocks_.push_back(
            {get(a + "self.query.weight", d, d), get(a + "self.query.bias", 1, d),
             get(a + "self.key.weight", d, d), get(a + "self.key.bias", 1, d),
             get(a + "self.value.weight", d, d), get(a + "self.value.bias", 1, d),
             get(a + "output.dense.weight", d, d), get(a + "output.dense.bias", 1, d),
             get(a + "output.LayerNorm.weight", 1, d), get(a + "output.LayerNorm.bias", 1, d),
             get(p + "intermediate.dense.weight", inner, d),
             get(p + "intermediate.dense.bias", 1, inner), get(p + "output.dense.weight", d, inner),
             get(p + "output.dense.bias", 1, d), get(p + "output.LayerNorm.weight", 1, d),
             get(p + "output.LayerNorm.bias", 1, d)});
    }
    m->has_head_ = f.find("cls.predictions.transform.dense.weight") != nullptr;
    if (m->has_head_) {
        const std::string h = "cls.predictions.";
        m->head_w_ = get(h + "transform.dense.weight", d, d);
        m->head_b_ = get(h + "transform.dense.bias", 1, d);
        m->head_ln_w_ = get(h + "transform.LayerNorm.weight", 1, d);
        m->head_ln_b_ = get(h + "transform.LayerNorm.bias", 1, d);
        m->decoder_b_ = get(f.find(h + "bias") ? h + "bias" : h + "decoder.bias", 1, c.vocab);
        m->tied_ = !f.find(h + "decoder.weight");
        if (!m->tied_) m->decoder_w_ = get(h + "decoder.weight", c.vocab, d);
    }
    return m;
}

std::vector<int> Model::token_types(const std::vector<std::int32_t>& ids) const {
    std::vector<int> types(ids.size(), 0);
    if (!sep_ || config_.type_vocab < 2) return types;
    // [CLS] A [SEP] B [SEP]: B and its [SEP] are sentence B. A [SEP] that ends
    // the ids is A's.
    for (std::size_t i = 0; i + 1 < ids.size(); ++i)
        if (ids[i] == *sep_) {
            for (std::size_t j = i + 1; j < ids.size(); ++j)
                types[j] = 1;
            break;
        }
    return types;
}

Matrix Model::embed(const std::vector<std::int32_t>& ids, Index first) const {
    const blocks::EmbeddingSpec<Tensor, float> spec{&word_, &position_, &type_};
    const Matrix x = blocks::embed<float>(spec, ids, token_types(ids), first, config_.hidden);
    return blocks::layer_norm(x, emb_ln_w_, emb_ln_b_, config_.layer_norm_eps);
}

void Model::layer(int l, Matrix& x, Index first, const model::LayerAttention* past,
                  const model::LayerControls& controls, model::LayerAttention& out,
                  model::Hooks& hooks) const {
    const Config& c = config_;
    const Index m = x.rows(), dk = c.hidden / c.heads;
    const Block& b = blocks_[std::size_t(l)];
    const auto attention = [&](const Matrix& xin) {
        const Matrix q = bert_linear(xin, b.q_w, b.q_b), k = bert_linear(xin, b.k_w, b.k_b),
                     v = bert_linear(xin, b.v_w, b.v_b);
        // Head h's new rows (an encoder always runs whole, as the driver reuses no prefix of a
        // bidirectional model; the earlier run's rows are kept for the interface's contract).
        const auto rows = [&](Index h, blocks::Part part) {
            const Matrix& all = part == blocks::Part::Q ? q : part == blocks::Part::K ? k : v;
            return Matrix(all.middleCols(h * dk, dk));
        };
        const Matrix attn =
            bert_linear(model::attend_cached_heads(rows, c.heads, c.heads, dk, m, first, past,
                                                   controls.params, l, hooks, out),
                        b.o_w, b.o_b);
        hooks.attn_out(l, first, attn);
        return attn;
    };
    // Post-LN: each block's output is added to the stream, then the sum is
    // normalised.
    blocks::post_norm<float>(
        x,
        [&](const Matrix& t) { return blocks::layer_norm(t, b.ln1_w, b.ln1_b, c.layer_norm_eps); },
        attention);
    const auto mlp = [&](const Matrix& xin) {
        Matrix hidden = bert_linear(xin, b.in_w, b.in_b);
        blocks::activate(hidden, bert_activation(c.hidden_act));
        const Matrix mlp_out = bert_linear(hidden, b.out_w, b.out_b);
        hooks.mlp_out(l, first, mlp_out);
        return mlp_out;
    };
    blocks::post_norm<float>(
        x,
        [&](const Matrix& t) { return blocks::layer_norm(t, b.ln2_w, b.ln2_b, c.layer_norm_eps); },
        mlp);
}

Vector Model::logits(const Matrix& x) const {
    if (!has_head_) return {};  // BertModel: no masked-LM head, no logits
    Matrix t = bert_linear(x.topRows(1), head_w_, head_b_);
    blocks::activate(t, bert_activation(config_.hidden_act));
    t = blocks::layer_norm(t, head_ln_w_, head_ln_b_, config_.layer_norm_eps);
    const auto& decoder = tied_ ? word_ : decoder_w_;
    Vector out = decoder.matrix() * t.row(0).transpose();
    out += decoder_b_.matrix().row(0).transpose();
    return out;
}

Matrix Model::head_to_residual(int l, int h, const Matrix& z) const {
    const Index dk = config_.hidden / config_.heads;
    return z * blocks_[std::size_t(l)].o_w.matrix().middleCols(h * dk, dk).transpose();
}

Vector Model::attention_bias(int l) const {
    return blocks_[std::size_t(l)].o_b.matrix().row(0).transpose();
}

model::Model::FrozenNorm Model::final_norm(const Matrix&) const {
    throw ArgumentError(
        "direct logit attribution needs a pre-norm model; BERT "
        "normalises after each block");
}

Vector Model::unembedding(std::int32_t token, float* bias) const {
    if (!has_head_)
        throw ArgumentError(
            "this BERT folder has no masked-LM head (cls.predictions), so no "
            "token has an output vector");
    if (token < 0 || token >= config_.vocab)
        throw ArgumentError(std::string("token id ") + std::to_string(token) +
                            " is outside the vocabulary");
    if (bias) *bias = decoder_b_.matrix()(0, token);
    return (tied_ ? word_ : decoder_w_).matrix().row(token).transpose();
}

}  // namespace attn::bert
