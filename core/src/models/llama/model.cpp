// AttnScope core — the Llama family run natively: RMSNorm, grouped-query attention with rotary
// positions, SwiGLU; the attention controls inside the run. GPL-3.0-or-later.
#include "attn/models/llama/model.hpp"

#include <cmath>
#include <future>

#include "../open_tokenizer.hpp"
#include "attn/util/error.hpp"

namespace attn::llama {

namespace detail {

/// Row-wise RMSNorm with a learnt gain: w ⊙ x / √(mean(x²) + ε), as transformers' LlamaRMSNorm.
Matrix rms_norm(const Matrix& x, const FloatTensor& w, double eps) {
    Matrix out(x.rows(), x.cols());
    for (Index i = 0; i < x.rows(); ++i) {
        const float ms = x.row(i).squaredNorm() / float(x.cols());
        out.row(i) = x.row(i) * (1.f / std::sqrt(ms + float(eps)));
    }
    out.array().rowwise() *= w.matrix().row(0).array();
    return out;
}

/// cos and sin of each position's angles (rows: positions FIRST…, columns: head_dim / 2).
struct RopeTable {
    Matrix cos, sin;
};

RopeTable rope_table(const std::vector<double>& inv_freq, Index first, Index rows) {
    RopeTable t{Matrix(rows, Index(inv_freq.size())), Matrix(rows, Index(inv_freq.size()))};
    for (Index r = 0; r < rows; ++r)
        for (std::size_t i = 0; i < inv_freq.size(); ++i) {
            const double a = double(first + r) * inv_freq[i];
            t.cos(r, Index(i)) = float(std::cos(a));
            t.sin(r, Index(i)) = float(std::sin(a));
        }
    return t;
}

/// Rotates X (rows × head_dim) by TABLE in transformers' rotate_half convention: component i
/// pairs with i + head_dim / 2 (not with its neighbour, as interleaved RoPE would).
void rotate_half(Matrix& x, const RopeTable& t) {
    const Index half = x.cols() / 2;
    const Matrix a = x.leftCols(half), b = x.rightCols(half);
    x.leftCols(half) = (a.array() * t.cos.array() - b.array() * t.sin.array()).matrix();
    x.rightCols(half) = (b.array() * t.cos.array() + a.array() * t.sin.array()).matrix();
}

/// Mistral's causal window: query i sees keys in (i − window, i] (transformers'
/// sliding_window_causal: kv_idx > q_idx − sliding_window).
MaskSpec causal_window(Index n, Index window) {
    MaskSpec m;
    m.kind = MaskKind::Custom;
    m.custom = BoolMatrix::Constant(n, n, false);
    for (Index i = 0; i < n; ++i)
        for (Index j = std::max<Index>(0, i - window + 1); j <= i; ++j)
            m.custom(i, j) = true;
    return m;
}

}  // namespace detail

Matrix Model::Linear::operator()(const Matrix& x) const {
    // Hugging Face's Linear weight is [out, in]: x · Wᵀ, the transpose a BLAS flag, no copy.
    Matrix out = w.mul_t(x);
    if (has_bias) out.rowwise() += b.matrix().row(0);
    return out;
}

std::shared_ptr<Model> Model::open(const std::string& dir) {
    Config c = read_config(dir + "/config.json");
    // Large F16 / BF16 matrices stay in the mapped file, widened a tile at a time as they are
    // used: a 1B model opens without widening 2.5 GB, and a one-token step reads half the bytes.
    return assemble(std::move(c), std::make_unique<model::Weights>(dir, model::Keep::AsStored),
                    dir);
}

std::shared_ptr<Model> Model::assemble(Config config, std::unique_ptr<model::Weights> weights,
                                       const std::string& dir) {
    auto m = std::make_shared<Model>();
    m->config_ = std::move(config);
    m->weights_ = std::move(weights);
    const Config& c = m->config_;
    const model::Weights& w = *m->weights_;
    m->inv_freq_ = rope_frequencies(c);
    model::ModelInfo& info = m->info_;
    info.family = c.model_type;
    info.display = c.model_type == "llama"     ? "Llama"
                   : c.model_type == "mistral" ? "Mistral"
                   : c.model_type == "qwen2"   ? "Qwen2"
                                               : "Qwen3";
    info.layers = c.layers;
    info.heads = c.heads;
    info.kv_heads = c.kv_heads;
    info.d_model = c.hidden;
    info.head_dim = c.head_dim;
    info.vocab = c.vocab;
    info.max_positions = c.max_positions;
    info.rotary = true;
    info.sliding_window = c.sliding_window;
    info.dtype = w.dtype();
    info.file_bytes = w.file_bytes();
    for (const auto& [name, e] : w.tensors())
        if (name.find("rotary_emb") == std::string::npos && !(c.tied && name == "lm_head.weight"))
            info.parameters += e.info->count();
    // LlamaForCausalLM's weights carry a "model." prefix, LlamaModel's none.
    const std::string p = w.find("model.embed_tokens.weight") ? "model." : "";
    info.folder = dir;
    info.layer_prefix = p + "layers.";
    const Index d = c.hidden, hd = c.head_dim, qd = Index(c.heads) * hd,
                kvd = Index(c.kv_heads) * hd, ff = c.intermediate;
    const auto linear = [&](const std::string& name, Index out, Index in, bool bias) {
        Linear lin{w.get(name + ".weight", out, in), {}, bias};
        if (bias) lin.b = w.get(name + ".bias", 1, out);
        return lin;
    };
    m->embed_ = w.get(p + "embed_tokens.weight", c.vocab, d);
    m->norm_ = w.get(p + "norm.weight", 1, d);
    for (int l = 0; l < c.layers; ++l) {
        const std::string b = p + "layers." + std::to_string(l) + ".";
        Block blk;
        blk.input_norm = w.get(b + "input_layernorm.weight", 1, d);
        blk.post_norm = w.get(b + "post_attention_layernorm.weight", 1, d);
        if (c.qk_norm) {
            blk.q_norm = w.get(b + "self_attn.q_norm.weight", 1, hd);
            blk.k_norm = w.get(b + "self_attn.k_norm.weight", 1, hd);
        }
        blk.q = linear(b + "self_attn.q_proj", qd, d, c.qkv_bias);
        blk.k = linear(b + "self_attn.k_proj", kvd, d, c.qkv_bias);
        blk.v = linear(b + "self_attn.v_proj", kvd, d, c.qkv_bias);
        blk.o = linear(b + "self_attn.o_proj", d, qd, c.o_bias);
        blk.gate = linear(b + "mlp.gate_proj", ff, d, c.mlp_bias);
        blk.up = linear(b + "mlp.up_proj", ff, d, c.mlp_bias);
        blk.down = linear(b + "mlp.down_proj", d, ff, c.mlp_bias);
        m->blocks_.push_back(std::move(blk));
    }
    if (!c.tied) {
        if (!w.find("lm_head.weight"))
            throw FormatError(dir +
                              ": tie_word_embeddings is false but there is no "
                              "lm_head.weight (a base model without its output head?)");
        m->lm_head_ = w.get("lm_head.weight", c.vocab, d);
    }
    return m;
}

Matrix Model::embed(const std::vector<std::int32_t>& ids, Index first) const {
    const Index n = Index(ids.size());
    Matrix x(n - first, config_.hidden);
    for (Index i = first; i < n; ++i)
        x.row(i - first) = embed_.row(ids[std::size_t(i)]).transpose();
    return x;
}

void Model::layer(int l, Matrix& x, Index first, const model::LayerAttention* past,
                  const model::LayerControls& controls, model::LayerAttention& out,
                  model::Hooks& hooks) const {
    const Config& c = config_;
    const Block& b = blocks_[std::size_t(l)];
    const Index m = x.rows(), n = first + m, hd = c.head_dim, group = c.heads / c.kv_heads;
    const Matrix h = detail::rms_norm(x, b.input_norm, c.rms_norm_eps);
    const Matrix q = b.q(h), k = b.k(h), v = b.v(h);
    const detail::RopeTable table = detail::rope_table(inv_freq_, first, m);
    // A head's new rows: qwen3's norm over head_dim, then rotary positions unless turned off.
    const auto prepare = [&](const Matrix& all, Index head, const FloatTensor* norm) {
        Matrix t = all.middleCols(head * hd, hd);
        if (c.qk_norm) t = detail::rms_norm(t, *norm, c.rms_norm_eps);
        if (controls.rotary) detail::rotate_half(t, table);
        return t;
    };
    // Each head's q, k or v over every position: the earlier run's rows, then the new ones.
    const auto whole = [&](const std::vector<Matrix>* old, Index head, const Matrix& rows) {
        Matrix t(n, hd);
        if (first > 0) t.topRows(first) = (*old)[std::size_t(head)].topRows(first);
        t.bottomRows(m) = rows;
        return t;
    };
    AttentionParams params = controls.params;
    if (c.sliding_window > 0 && n > c.sliding_window && params.mask.kind == MaskKind::Causal)
        params.mask = detail::causal_window(n, c.sliding_window);
    Matrix merged(m, Index(c.heads) * hd), z;
    std::vector<Matrix> kg, vg;  // each key/value group's rows, shared by its query heads
    for (Index g = 0; g < c.kv_heads; ++g) {
        kg.push_back(prepare(k, g, &b.k_norm));
        vg.push_back(v.middleCols(g * hd, hd));
    }
    for (Index hq = 0; hq < c.heads; ++hq) {
        const std::size_t g = std::size_t(hq / group);
        out.q.push_back(whole(past ? &past->q : nullptr, hq, prepare(q, hq, &b.q_norm)));
        out.k.push_back(whole(past ? &past->k : nullptr, hq, kg[g]));
        out.v.push_back(whole(past ? &past->v : nullptr, hq, vg[g]));
        out.heads.push_back(model::attend_head(out.q.back(), out.k.back(), out.v.back(), params, l,
                                               int(hq), first, hooks, z));
        merged.middleCols(hq * hd, hd) = z;
    }
    const Matrix attn = b.o(merged);
    hooks.attn_out(l, first, attn);
    x += attn;
    const Matrix h2 = detail::rms_norm(x, b.post_norm, c.rms_norm_eps);
    Matrix gate = b.gate(h2);
    const Matrix up = b.up(h2);
    // SwiGLU: silu(gate) ⊙ up, silu(g) = g / (1 + e^−g).
    gate = (gate.array() / (1.f + (-gate.array()).exp()) * up.array()).matrix();
    const Matrix mlp = b.down(gate);
    hooks.mlp_out(l, first, mlp);
    x += mlp;
}

Vector Model::logits(const Matrix& x) const {
    const Matrix last = detail::rms_norm(x, norm_, config_.rms_norm_eps);
    const FloatTensor& head = config_.tied ? embed_ : lm_head_;
    return head.mul_t(last.topRows(1)).transpose();
}

Matrix Model::head_to_residual(int l, int h, const Matrix& z) const {
    const Index hd = config_.head_dim;
    const FloatTensor& o = blocks_[std::size_t(l)].o.w;
    return z * o.block(0, h * hd, o.rows(), hd).transpose();
}

Vector Model::attention_bias(int l) const {
    const Linear& o = blocks_[std::size_t(l)].o;
    return o.has_bias ? Vector(o.b.matrix().row(0).transpose()) : Vector::Zero(config_.hidden);
}

model::Model::FrozenNorm Model::final_norm(const Matrix& x) const {
    FrozenNorm f;
    f.centre = false;
    f.inv_scale =
        1.f / std::sqrt(x.row(0).squaredNorm() / float(x.cols()) + float(config_.rms_norm_eps));
    f.gain = norm_.matrix().row(0).transpose();
    f.bias = Vector::Zero(config_.hidden);
    return f;
}

Vector Model::unembedding(std::int32_t token, float* bias) const {
    if (bias) *bias = 0.f;
    const FloatTensor& head = config_.tied ? embed_ : lm_head_;
    return head.row(token);
}

model::ModelFolder open_folder(const std::string& dir) {
    model::ModelFolder f;
    f.dir = dir;
    // The tokenizer (a 9–33 MB JSON file to parse) loads while the weights are checked.
    auto tokenizer = std::async(std::launch::async, [&dir] { return model::open_tokenizer(dir); });
    const auto model = Model::open(dir);
    f.model = model;
    f.tokenizer = tokenizer.get();
    if (Index(f.tokenizer->vocab_size()) > model->config().vocab)
        throw FormatError(dir + "/tokenizer.json: " + std::to_string(f.tokenizer->vocab_size()) +
                          " tokens, more than the model's vocab_size " +
                          std::to_string(model->config().vocab));
    model->set_text_vocab(int(f.tokenizer->vocab_size()));
    return f;
}

}  // namespace attn::llama
