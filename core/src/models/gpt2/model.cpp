// AttnScope core — a GPT-2-family model run natively, a composition of blocks
// (LayerNorm, fused Conv1D q/k/v, GELU-tanh MLP, pre-norm residuals), with
// attention controls inside the run. GPL-3.0-or-later.
#include "attn/models/gpt2/model.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "../../files/io_util.hpp"
#include "../cached_heads.hpp"
#include "../family_parts.hpp"
#include "attn/blocks/mlp.hpp"
#include "attn/blocks/norms.hpp"
#include "attn/blocks/projections.hpp"
#include "attn/blocks/residual.hpp"
#include "attn/util/error.hpp"

namespace attn::gpt2 {

namespace {

int positive_field(const nlohmann::json& j, const char* name, const std::string& path) {
    if (!j.contains(name) || !j[name].is_number_integer() || j[name].get<long long>() <= 0 ||
        j[name].get<long long>() > (1 << 24))
        throw FormatError(path + ": \"" + name + "\" must be a positive integer");
    return j[name].get<int>();
}

bool flag(const nlohmann::json& j, const char* name, const std::string& path, bool fallback) {
    if (!j.contains(name) || j[name].is_null()) return fallback;
    if (!j[name].is_boolean()) throw FormatError(path + ": \"" + name + "\" must be true or false");
    return j[name].get<bool>();
}

/// x·W + b with Conv1D's [in, out] weight.
Matrix conv1d(const Matrix& x, const FloatTensor& w, const FloatTensor& b) {
    return blocks::linear<float>(x, blocks::InOut<Eigen::Map<const Matrix>>{w.matrix()},
                                 b.matrix().row(0));
}

}  // namespace

Config read_config(const std::string& path) {
    // Opened without blocking and refused unless a regular file (a FIFO would
    // hang the start).
    const std::vector<std::byte> bytes = io::detail::read_whole_file(path, path);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(reinterpret_cast<const char*>(bytes.data()),
                                  reinterpret_cast<const char*>(bytes.data()) + bytes.size());
    } catch (const nlohmann::json::exception& e) {
        throw FormatError(path + ": not JSON (" + std::string(e.what()) + ")");
    }
    if (!j.is_object()) throw FormatError(path + ": not a JSON object");
    const std::string type = j.value("model_type", std::string());
    if (type != "gpt2")
        throw FormatError(path + ": model_type is \"" + type + "\"; AttnScope runs gpt2 models");
    const std::string act = j.value("activation_function", std::string("gelu_new"));
    if (act != "gelu_new")
        throw FormatError(path + ": activation_function \"" + act + "\" is not gelu_new");
    Config c;
    c.n_layer = positive_field(j, "n_layer", path);
    c.n_head = positive_field(j, "n_head", path);
    c.n_embd = positive_field(j, "n_embd", path);
    c.n_positions = positive_field(j, "n_positions", path);
    c.vocab_size = positive_field(j, "vocab_size", path);
    if (j.contains("layer_norm_epsilon")) {
        if (!j["layer_norm_epsilon"].is_number() || j["layer_norm_epsilon"].get<double>() <= 0)
            throw FormatError(path + ": layer_norm_epsilon must be a positive number");
        c.layer_norm_epsilon = j["layer_norm_epsilon"].get<double>();
    }
    // GPT2Config's defaults: n_inner null is 4 · n_embd; scores scaled by 1/√d_k
    // only.
    c.n_inner = j.contains("n_inner") && !j["n_inner"].is_null()
                    ? positive_field(j, "n_inner", path)
                    : 4 * c.n_embd;
    c.scale_attn_weights = flag(j, "scale_attn_weights", path, true);
    c.scale_attn_by_inverse_layer_idx = flag(j, "scale_attn_by_inverse_layer_idx", path, false);
    // reorder_and_upcast_attn (GPT2Attention's _upcast_and_reordered_attn)
    // computes the same scaled scores and softmax in float32 for half-precision
    // runs; AttnScope computes them in float32 always, so the flag changes
    // nothing here and is accepted (its value still checked).
    (void)flag(j, "reorder_and_upcast_attn", path, false);
    if (c.n_embd % c.n_head != 0)
        throw FormatError(path + ": n_head " + std::to_string(c.n_head) +
                          " does not divide n_embd " + std::to_string(c.n_embd));
    return c;
}

std::shared_ptr<Model> Model::open(const std::string& dir) {
    auto m = std::make_shared<Model>();
    m->config_ = read_config(dir + "/config.json");
    m->file_ = std::make_unique<SafetensorsFile>(dir + "/model.safetensors");
    const Config& c = m->config_;
    const SafetensorsFile& f = *m->file_;
    model::ModelInfo& info = m->info_;
    info.family = "gpt2";
    info.display = "GPT-2";
    info.layers = c.n_layer;
    info.heads = info.kv_heads = c.n_head;
    info.d_model = c.n_embd;
    info.head_dim = c.n_embd / c.n_head;
    info.vocab = c.vocab_size;
    info.max_positions = c.n_positions;
    info.dtype = "F32";
    for (const auto& [name, t] : f.tensors()) {
        if (name.find(".attn.bias") != std::string::npos ||
            name.find("masked_bias") != std::string::npos || name.rfind("lm_head.", 0) == 0)
            continue;
        info.parameters += t.count();
        if (t.dtype_name != "F32") info.dtype = t.dtype_name;
    }
    info.file_bytes = double(f.file_size());
    // Hugging Face writes GPT2LMHeadModel's weights with a "transformer." prefix
    // and GPT2Model's without; the attn.bias / masked_bias buffers and a tied
    // lm_head are not needed.
    const std::string prefix = f.find("transformer.wte.weight") ? "transformer." : "";
    info.folder = dir;
    info.layer_prefix = prefix + "h.";
    const auto get = [&](const std::string& name, Index rows, Index cols) {
        const TensorInfo* t = f.find(prefix + name);
        if (!t) throw FormatError(f.path() + ": tensor \"" + prefix + name + "\" is missing");
        return FloatTensor(*t, rows, cols, f.path() + ": tensor \"" + prefix + name + "\"");
    };
    const Index d = c.n_embd;
    m->wte_ = get("wte.weight", c.vocab_size, d);
    m->wpe_ = get("wpe.weight", c.n_positions, d);
    m->lnf_w_ = get("ln_f.weight", 1, d);
    m->lnf_b_ = get("ln_f.bias", 1, d);
    for (int l = 0; l < c.n_layer; ++l) {
        const std::string h = "h." + std::to_string(l) + ".";
        m->blocks_.push_back(
            {get(h + "ln_1.weight", 1, d), get(h + "ln_1.bias", 1, d),
             get(h + "attn.c_attn.weight", d, 3 * d), get(h + "attn.c_attn.bias", 1, 3 * d),
             get(h + "attn.c_proj.weight", d, d), get(h + "attn.c_proj.bias", 1, d),
             get(h + "ln_2.weight", 1, d), get(h + "ln_2.bias", 1, d),
             get(h + "mlp.c_fc.weight", d, c.n_inner), get(h + "mlp.c_fc.bias", 1, c.n_inner),
             get(h + "mlp.c_proj.weight", c.n_inner, d), get(h + "mlp.c_proj.bias", 1, d)});
    }
    return m;
}

Matrix Model::embed(const std::vector<std::int32_t>& ids, Index first) const {
    const Index n = Index(ids.size());
    Matrix x(n - first, config_.n_embd);
    for (Index i = first; i < n; ++i)
        x.row(i - first) = wte_.matrix().row(ids[std::size_t(i)]) + wpe_.matrix().row(i);
    return x;
}

void Model::layer(int l, Matrix& x, Index first, const LayerAttention* past,
                  const model::LayerControls& controls, LayerAttention& out,
                  model::Hooks& hooks) const {
    const Config& c = config_;
    const Index m = x.rows(), dk = c.n_embd / c.n_head;
    const Block& b = blocks_[std::size_t(l)];
    const double eps = c.layer_norm_epsilon;
    const auto ln1 = [&](const Matrix& t) { return blocks::layer_norm(t, b.ln1_w, b.ln1_b, eps); };
    const auto attention = [&](const Matrix& h) {
        const Matrix qkv = conv1d(h, b.attn_w, b.attn_b);
        // Head h's new rows of q, k or v: c_attn's blocks.
        const auto rows = [&](Index head, blocks::Part part) {
            return Matrix(blocks::fused_head<float>(qkv, blocks::FusedQkv::Blocks, part, head,
                                                    c.n_head, c.n_head, dk));
        };
        // GPT2Attention's scaling: ÷ √d_k (scale_attn_weights), then ÷ (l + 1)
        // (scale_attn_by_inverse_layer_idx), one factor 1/√scale_dk; the scaling
        // control turns the whole factor off.
        AttentionParams params = controls.params;
        const float by_layer = c.scale_attn_by_inverse_layer_idx ? float(l + 1) : 1.f;
        if (!c.scale_attn_weights && !c.scale_attn_by_inverse_layer_idx)
            params.scale = false;
        else
            params.scale_dk = (c.scale_attn_weights ? float(dk) : 1.f) * by_layer * by_layer;
        // Every query's attention, the earlier run's too: the shown stages are the whole run's.
        const Matrix merged = model::attend_cached_heads(rows, c.n_head, c.n_head, dk, m, first,
                                                         past, params, l, hooks, out);
        const Matrix attn = conv1d(merged, b.proj_w, b.proj_b);
        hooks.attn_out(l, first, attn);
        return attn;
    };
    blocks::pre_norm<float>(x, ln1, attention);
    const auto ln2 = [&](const Matrix& t) { return blocks::layer_norm(t, b.ln2_w, b.ln2_b, eps); };
    const auto mlp = [&](const Matrix& h) {
        Matrix hidden = conv1d(h, b.fc_w, b.fc_b);
        blocks::activate(hidden, blocks::Activation::GeluTanh);  // gelu_new
        const Matrix mlp_out = conv1d(hidden, b.mlp_proj_w, b.mlp_proj_b);
        hooks.mlp_out(l, first, mlp_out);
        return mlp_out;
    };
    blocks::pre_norm<float>(x, ln2, mlp);
}

Vector Model::logits(const Matrix& x) const {
    const Matrix last = blocks::layer_norm(x, lnf_w_, lnf_b_, config_.layer_norm_epsilon);
    return wte_.matrix() * last.row(0).transpose();  // logits from the tied embedding
}

Matrix Model::logits_rows(const Matrix& x) const {
    // One product with the tied embedding for every row: the output head is read
    // once.
    return blocks::layer_norm(x, lnf_w_, lnf_b_, config_.layer_norm_epsilon) *
           wte_.matrix().transpose();
}

Matrix Model::head_to_residual(int l, int h, const Matrix& z) const {
    const Index dk = config_.n_embd / config_.n_head;
    return z * blocks_[std::size_t(l)].proj_w.matrix().middleRows(h * dk, dk);
}

Vector Model::attention_bias(int l) const {
    return blocks_[std::size_t(l)].proj_b.matrix().row(0).transpose();
}

model::Model::FrozenNorm Model::final_norm(const Matrix& x) const {
    const blocks::FrozenNorm<float> frozen = blocks::freeze_layer_norm<float>(
        x.topRows(1), lnf_w_.matrix().row(0), lnf_b_.matrix().row(0), config_.layer_norm_epsilon);
    FrozenNorm f;
    f.centre = true;
    f.inv_scale = frozen.inv_scale(0);
    f.gain = frozen.gain.transpose();
    f.bias = frozen.bias.transpose();
    return f;
}

Vector Model::unembedding(std::int32_t token, float* bias) const {
    if (bias) *bias = 0.f;
    return wte_.matrix().row(token).transpose();
}

ModelFolder open_folder(const std::string& dir) {
    ModelFolder f;
    f.dir = dir;
    auto model = Model::open(dir);
    f.model = model;
    f.tokenizer = std::make_shared<const BpeTokenizer>(
        BpeTokenizer::load(dir + "/vocab.json", dir + "/merges.txt"));
    if (Index(f.tokenizer->vocab_size()) > model->config().vocab_size)
        throw FormatError(dir + "/vocab.json: " + std::to_string(f.tokenizer->vocab_size()) +
                          " tokens, more than the model's vocab_size " +
                          std::to_string(model->config().vocab_size));
    model->set_text_vocab(int(f.tokenizer->vocab_size()));
    return f;
}

}  // namespace attn::gpt2
