// AttnScope core — a GPT-2-family model run natively, with attention controls inside the run.
// GPL-3.0-or-later.
#include "attn/gpt2/model.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "../io/io_util.hpp"
#include "attn/error.hpp"

namespace attn::gpt2 {

namespace {

using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

int positive_field(const nlohmann::json& j, const char* name, const std::string& path) {
    if (!j.contains(name) || !j[name].is_number_integer() || j[name].get<long long>() <= 0 ||
        j[name].get<long long>() > (1 << 24))
        throw FormatError(path + ": \"" + name + "\" must be a positive integer");
    return j[name].get<int>();
}

/// Row-wise LayerNorm with GPT-2's learnt gain and bias.
Matrix layer_norm(const Matrix& x, const FloatTensor& w, const FloatTensor& b, double eps) {
    Matrix out(x.rows(), x.cols());
    for (Index i = 0; i < x.rows(); ++i) {
        const auto row = x.row(i);
        const float mean = row.mean();
        const float var = (row.array() - mean).square().mean();
        out.row(i) = ((row.array() - mean) / std::sqrt(var + float(eps))).matrix();
    }
    out.array().rowwise() *= w.matrix().row(0).array();
    out.array().rowwise() += b.matrix().row(0).array();
    return out;
}

/// x·W + b with Conv1D's [in, out] weight.
Matrix affine(const Matrix& x, const FloatTensor& w, const FloatTensor& b) {
    Matrix out = x * w.matrix();
    out.rowwise() += b.matrix().row(0);
    return out;
}

/// gelu_new: GPT-2's tanh approximation of GELU.
void gelu_new(Matrix& x) {
    constexpr float c = 0.7978845608028654f;  // √(2/π)
    x = (0.5f * x.array() * (1.f + (c * (x.array() + 0.044715f * x.array().cube())).tanh()))
            .matrix();
}

}  // namespace

Config read_config(const std::string& path) {
    // Opened without blocking and refused unless a regular file (a FIFO would hang the start).
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
    if (c.n_embd % c.n_head != 0)
        throw FormatError(path + ": n_head " + std::to_string(c.n_head) +
                          " does not divide n_embd " + std::to_string(c.n_embd));
    return c;
}

std::shared_ptr<const Model> Model::open(const std::string& dir) {
    auto m = std::make_shared<Model>();
    m->config_ = read_config(dir + "/config.json");
    m->file_ = std::make_unique<SafetensorsFile>(dir + "/model.safetensors");
    const Config& c = m->config_;
    const SafetensorsFile& f = *m->file_;
    // Hugging Face writes GPT2LMHeadModel's weights with a "transformer." prefix and GPT2Model's
    // without; the attn.bias / masked_bias buffers and a tied lm_head are not needed.
    const std::string prefix = f.find("transformer.wte.weight") ? "transformer." : "";
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
             get(h + "mlp.c_fc.weight", d, 4 * d), get(h + "mlp.c_fc.bias", 1, 4 * d),
             get(h + "mlp.c_proj.weight", 4 * d, d), get(h + "mlp.c_proj.bias", 1, d)});
    }
    return m;
}

Run Model::run(const std::vector<std::int32_t>& ids, const RunControls& controls,
               Progress* progress, const Run* prefix) const {
    const Config& c = config_;
    if (ids.empty()) throw ArgumentError("GPT-2 needs at least one token");
    if (Index(ids.size()) > c.n_positions)
        throw ArgumentError(std::to_string(ids.size()) + " tokens are more than the model's " +
                            std::to_string(c.n_positions) + " positions");
    for (const std::int32_t id : ids)
        if (id < 0 || id >= c.vocab_size)
            throw ArgumentError("token id " + std::to_string(id) +
                                " is outside the vocabulary of " + std::to_string(c.vocab_size));
    for (const int l : controls.layers)
        if (l < 0 || l >= c.n_layer)
            throw ArgumentError("layer " + std::to_string(l) + " does not exist (the model has " +
                                std::to_string(c.n_layer) + ")");
    if (!(controls.temperature > 0.f) || !std::isfinite(controls.temperature))
        throw ArgumentError("temperature must be a positive number");

    const Index n = Index(ids.size()), d = c.n_embd, dk = d / c.n_head;
    // GPT-2 is causal: a token's hidden states depend on it and the tokens before it only, so
    // the rows of a shared prefix are the earlier run's (the last token is always computed).
    Index p = 0;
    if (prefix && controls.mask == causal() && prefix->controls.mask == causal() &&
        prefix->controls.scale == controls.scale &&
        prefix->controls.temperature == controls.temperature &&
        prefix->controls.layers == controls.layers &&
        prefix->inputs.size() == std::size_t(c.n_layer) + 1 &&
        Index(prefix->layers.size()) == c.n_layer)
        while (p < n - 1 && p < Index(prefix->ids.size()) &&
               prefix->ids[std::size_t(p)] == ids[std::size_t(p)])
            ++p;
    const Index m = n - p;  // the rows computed here
    Matrix x(n, d);
    if (p > 0) x.topRows(p) = prefix->inputs[0].topRows(p);
    for (Index i = p; i < n; ++i)
        x.row(i) = wte_.matrix().row(ids[i]) + wpe_.matrix().row(i);

    Run run;
    run.ids = ids;
    run.reused = p;
    run.controls = controls;
    report(progress, 0.0);
    for (int l = 0; l < c.n_layer; ++l) {
        run.inputs.push_back(x);
        const Block& b = blocks_[l];
        const bool inside =
            controls.layers.empty() ||
            std::find(controls.layers.begin(), controls.layers.end(), l) != controls.layers.end();
        AttentionParams params;  // GPT-2's own: scaled dot product, causal, τ = 1
        params.mask = causal();
        if (inside) {
            params.scale = controls.scale;
            params.temperature = controls.temperature;
            params.mask = controls.mask;
        }
        const Matrix qkv =
            affine(layer_norm(x.bottomRows(m), b.ln1_w, b.ln1_b, c.layer_norm_epsilon), b.attn_w,
                   b.attn_b);
        LayerAttention layer;
        Matrix merged(m, d);
        // Head h's q, k or v (the column block at col): the prefix's rows, then the new ones.
        const auto rows = [&](const std::vector<Matrix>* old, int h, Index col) {
            Matrix t(n, dk);
            if (p > 0) t.topRows(p) = (*old)[std::size_t(h)].topRows(p);
            t.bottomRows(m) = qkv.middleCols(col, dk);
            return t;
        };
        const LayerAttention* before = p > 0 ? &prefix->layers[std::size_t(l)] : nullptr;
        for (int h = 0; h < c.n_head; ++h) {
            // Heads are d_k-wide column blocks of q, k and v.
            layer.q.push_back(rows(before ? &before->q : nullptr, h, h * dk));
            layer.k.push_back(rows(before ? &before->k : nullptr, h, d + h * dk));
            layer.v.push_back(rows(before ? &before->v : nullptr, h, 2 * d + h * dk));
            // Every query's attention, the prefix's too: the shown stages are the whole run's.
            layer.heads.push_back(attend(layer.q.back(), layer.k.back(), layer.v.back(), params));
            merged.middleCols(h * dk, dk) = layer.heads.back().output.bottomRows(m);
        }
        x.bottomRows(m) += affine(merged, b.proj_w, b.proj_b);
        Matrix hidden = affine(layer_norm(x.bottomRows(m), b.ln2_w, b.ln2_b, c.layer_norm_epsilon),
                               b.fc_w, b.fc_b);
        gelu_new(hidden);
        x.bottomRows(m) += affine(hidden, b.mlp_proj_w, b.mlp_proj_b);
        if (p > 0) x.topRows(p) = prefix->inputs[std::size_t(l) + 1].topRows(p);
        run.layers.push_back(std::move(layer));
        report(progress, double(l + 1) / double(c.n_layer + 1));
    }
    run.inputs.push_back(x);
    const Matrix last = layer_norm(x.bottomRows(1), lnf_w_, lnf_b_, c.layer_norm_epsilon);
    run.logits = wte_.matrix() * last.row(0).transpose();  // logits from the tied embedding
    return run;
}

ModelFolder open_folder(const std::string& dir) {
    ModelFolder f;
    f.dir = dir;
    f.model = Model::open(dir);
    f.tokenizer = std::make_shared<const BpeTokenizer>(
        BpeTokenizer::load(dir + "/vocab.json", dir + "/merges.txt"));
    if (Index(f.tokenizer->vocab_size()) > f.model->config().vocab_size)
        throw FormatError(dir + "/vocab.json: " + std::to_string(f.tokenizer->vocab_size()) +
                          " tokens, more than the model's vocab_size " +
                          std::to_string(f.model->config().vocab_size));
    return f;
}

AttentionData attention_data(const Run& run, const Model& model, const BpeTokenizer& tokenizer,
                             const std::string& source) {
    const Config& c = model.config();
    AttentionComponent comp;
    comp.name = "GPT-2";
    for (const std::int32_t id : run.ids)
        comp.q_tokens.push_back(tokenizer.token_text(id));
    comp.k_tokens = comp.q_tokens;
    comp.layers = c.n_layer;
    comp.heads = c.n_head;
    comp.are_scores = true;
    comp.d_k = float(c.n_embd / c.n_head);
    for (const LayerAttention& layer : run.layers) {
        for (std::size_t h = 0; h < layer.heads.size(); ++h) {
            comp.mats.push_back(layer.heads[h].raw);
            comp.q.push_back(layer.q[h]);
            comp.k.push_back(layer.k[h]);
            comp.v.push_back(layer.v[h]);
        }
    }
    AttentionData data;
    data.source = source;
    data.components.push_back(std::move(comp));
    return data;
}

}  // namespace attn::gpt2
