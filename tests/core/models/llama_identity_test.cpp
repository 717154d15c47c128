// AttnScope — identities of the Llama family: grouped-query attention with duplicated key/value
// heads is plain multi-head attention; rotary scores depend only on relative position; a run
// reusing a prefix equals a full run; the per-head decomposition and the frozen final norm
// rebuild the run's own numbers. GPL-3.0-or-later.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "../io_test_util.hpp"
#include "attn/models/llama/model.hpp"
#include "attn/models/run.hpp"
#include "attn/util/error.hpp"
#include "attn/util/memory_budget.hpp"

namespace {

using attn::Index;
using attn::Matrix;
constexpr int kLayers = 2, kHidden = 24, kHeads = 4, kHeadDim = 6, kFF = 40, kVocab = 30;

using Tensors = std::map<std::string, Matrix>;

Matrix random(std::mt19937& rng, Index rows, Index cols, float sd, float mean = 0.f) {
    std::normal_distribution<float> d(mean, sd);
    Matrix m(rows, cols);
    for (Index i = 0; i < m.size(); ++i)
        m.data()[i] = d(rng);
    return m;
}

/// A llama's weights with KV key/value heads (vectors are 1 × n).
Tensors llama_weights(int kv, unsigned seed) {
    std::mt19937 rng(seed);
    Tensors t;
    t["model.embed_tokens.weight"] = random(rng, kVocab, kHidden, 0.7f);
    t["model.norm.weight"] = random(rng, 1, kHidden, 0.1f, 1.f);
    t["lm_head.weight"] = random(rng, kVocab, kHidden, 0.4f);
    for (int l = 0; l < kLayers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        t[p + "input_layernorm.weight"] = random(rng, 1, kHidden, 0.1f, 1.f);
        t[p + "post_attention_layernorm.weight"] = random(rng, 1, kHidden, 0.1f, 1.f);
        t[p + "self_attn.q_proj.weight"] = random(rng, kHeads * kHeadDim, kHidden, 0.3f);
        t[p + "self_attn.k_proj.weight"] = random(rng, kv * kHeadDim, kHidden, 0.3f);
        t[p + "self_attn.v_proj.weight"] = random(rng, kv * kHeadDim, kHidden, 0.3f);
        t[p + "self_attn.o_proj.weight"] = random(rng, kHidden, kHeads * kHeadDim, 0.2f);
        t[p + "mlp.gate_proj.weight"] = random(rng, kFF, kHidden, 0.2f);
        t[p + "mlp.up_proj.weight"] = random(rng, kFF, kHidden, 0.2f);
        t[p + "mlp.down_proj.weight"] = random(rng, kHidden, kFF, 0.15f);
    }
    return t;
}

/// Writes config.json and an F32 model.safetensors into DIR.
void write_folder(const std::string& dir, const Tensors& t, int kv, nlohmann::json extra = {}) {
    nlohmann::json cfg = {{"model_type", "llama"},         {"num_hidden_layers", kLayers},
                          {"hidden_size", kHidden},        {"num_attention_heads", kHeads},
                          {"num_key_value_heads", kv},     {"head_dim", kHeadDim},
                          {"intermediate_size", kFF},      {"vocab_size", kVocab},
                          {"max_position_embeddings", 64}, {"rope_theta", 100.0}};
    if (extra.is_object()) cfg.update(extra);
    std::ofstream(dir + "/config.json") << cfg.dump();
    nlohmann::json header;
    std::size_t offset = 0;
    for (const auto& [name, m] : t) {
        const std::size_t bytes = std::size_t(m.size()) * 4;
        header[name] = {{"dtype", "F32"},
                        {"shape", m.rows() == 1 ? std::vector<Index>{m.cols()}
                                                : std::vector<Index>{m.rows(), m.cols()}},
                        {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::ofstream out(dir + "/model.safetensors", std::ios::binary);
    const std::uint64_t len = text.size();
    out.write(reinterpret_cast<const char*>(&len), 8);
    out << text;
    for (const auto& [name, m] : t)
        out.write(reinterpret_cast<const char*>(m.data()), std::streamsize(m.size() * 4));
}

const std::vector<std::int32_t> kIds = {3, 17, 5, 29, 0, 12, 12, 8, 21};

TEST(LlamaIdentity, GroupedQueryWithDuplicatedKeysAndValuesIsMultiHead) {
    io_test::TempDir gqa, mha;
    const Tensors grouped = llama_weights(2, 5);
    Tensors plain = grouped;
    // Query heads 2g and 2g + 1 share group g: multi-head attention with that group's rows twice.
    for (int l = 0; l < kLayers; ++l)
        for (const char* proj : {"k_proj", "v_proj"}) {
            const std::string name =
                "model.layers." + std::to_string(l) + ".self_attn." + proj + ".weight";
            Matrix dup(kHeads * kHeadDim, kHidden);
            for (int h = 0; h < kHeads; ++h)
                dup.middleRows(h * kHeadDim, kHeadDim) =
                    grouped.at(name).middleRows((h / 2) * kHeadDim, kHeadDim);
            plain[name] = dup;
        }
    write_folder(gqa.path.string(), grouped, 2);
    write_folder(mha.path.string(), plain, kHeads);
    const auto a = attn::llama::Model::open(gqa.path.string());
    const auto b = attn::llama::Model::open(mha.path.string());
    EXPECT_EQ(a->info().kv_heads, 2);
    EXPECT_EQ(b->info().kv_heads, kHeads);
    const auto ra = attn::model::run(*a, kIds), rb = attn::model::run(*b, kIds);
    for (int l = 0; l < kLayers; ++l)
        for (int h = 0; h < kHeads; ++h) {
            const auto& la = ra.layers[std::size_t(l)];
            const auto& lb = rb.layers[std::size_t(l)];
            EXPECT_LT((la.heads[std::size_t(h)].weights - lb.heads[std::size_t(h)].weights)
                          .cwiseAbs()
                          .maxCoeff(),
                      1e-5f);
            // out.k holds each query head's group repeated: heads 2g and 2g + 1 see the same keys.
            EXPECT_EQ(la.k[std::size_t(h)], la.k[std::size_t(h / 2 * 2)]);
        }
    EXPECT_LT((ra.logits - rb.logits).cwiseAbs().maxCoeff(),
              1e-4f * rb.logits.cwiseAbs().maxCoeff());
}

TEST(LlamaIdentity, RotaryScoresDependOnlyOnRelativePosition) {
    io_test::TempDir dir;
    write_folder(dir.path.string(), llama_weights(2, 9), 2);
    const auto model = attn::llama::Model::open(dir.path.string());
    const Index m = Index(kIds.size()), shift = 7;
    attn::model::LayerControls controls;
    controls.params.mask.kind = attn::MaskKind::None;
    attn::model::Hooks hooks;
    // The same tokens at positions 0… and at positions 7…: the earlier 7 positions are a past
    // of zeros, whose scores are not looked at.
    Matrix x0 = model->embed(kIds, 0), x7 = x0;
    attn::model::LayerAttention at0, at7, past;
    for (int h = 0; h < kHeads; ++h) {
        past.q.push_back(Matrix::Zero(shift, kHeadDim));
        past.k.push_back(Matrix::Zero(shift, kHeadDim));
        past.v.push_back(Matrix::Zero(shift, kHeadDim));
    }
    model->layer(0, x0, 0, nullptr, controls, at0, hooks);
    model->layer(0, x7, shift, &past, controls, at7, hooks);
    for (int h = 0; h < kHeads; ++h) {
        const Matrix& raw0 = at0.heads[std::size_t(h)].raw;
        const Matrix raw7 = at7.heads[std::size_t(h)].raw.block(shift, shift, m, m);
        EXPECT_LT((raw0 - raw7).cwiseAbs().maxCoeff(), 1e-4f * raw0.cwiseAbs().maxCoeff());
        // The rotated queries themselves do move with the shift: the identity is not vacuous.
        EXPECT_GT(
            (at0.q[std::size_t(h)] - at7.q[std::size_t(h)].bottomRows(m)).cwiseAbs().maxCoeff(),
            1e-2f);
    }
}

void expect_prefix_reuse(const std::string& dir) {
    const auto model = attn::llama::Model::open(dir);
    std::vector<std::int32_t> retyped = kIds;
    retyped.back() = 4;
    retyped.push_back(22);
    const auto first = attn::model::run(*model, kIds);
    const auto reused = attn::model::run(*model, retyped, {}, nullptr, nullptr, &first);
    const auto full = attn::model::run(*model, retyped);
    EXPECT_EQ(reused.reused, Index(kIds.size()) - 1);
    for (std::size_t l = 0; l < full.layers.size(); ++l)
        for (std::size_t h = 0; h < full.layers[l].heads.size(); ++h)
            EXPECT_LT((reused.layers[l].heads[h].weights - full.layers[l].heads[h].weights)
                          .cwiseAbs()
                          .maxCoeff(),
                      1e-5f);
    EXPECT_LT((reused.logits - full.logits).cwiseAbs().maxCoeff(),
              1e-5f * full.logits.cwiseAbs().maxCoeff());
}

TEST(LlamaIdentity, PrefixReuseEqualsAFullRun) {
    io_test::TempDir dir;
    write_folder(dir.path.string(), llama_weights(2, 13), 2);
    expect_prefix_reuse(dir.path.string());
}

TEST(LlamaIdentity, PrefixReuseEqualsAFullRunUnderASlidingWindow) {
    io_test::TempDir dir;
    Tensors t = llama_weights(2, 17);
    write_folder(dir.path.string(), t, 2, {{"model_type", "mistral"}, {"sliding_window", 3}});
    expect_prefix_reuse(dir.path.string());
}

TEST(LlamaIdentity, MistralWindowIsAMaskKindNotAnNByNMatrix) {
    io_test::TempDir dir;
    write_folder(dir.path.string(), llama_weights(2, 17), 2,
                 {{"model_type", "mistral"}, {"sliding_window", 3}});
    const auto model = attn::llama::Model::open(dir.path.string());
    const attn::AttentionParams own = model->layer_params(1);
    EXPECT_EQ(own.mask.kind, attn::MaskKind::CausalWindow);
    EXPECT_EQ(own.mask.window, 3);
    const auto run = attn::model::run(*model, kIds);
    const Index n = Index(kIds.size());
    for (const auto& layer : run.layers)
        for (const attn::HeadResult& h : layer.heads) {
            EXPECT_EQ(h.mask.kind, attn::MaskKind::CausalWindow);
            EXPECT_EQ(h.mask.custom.size(), 0);  // nothing n × n allocated for the mask
            // Query i weighs keys i − 2 .. i only, and those sum to 1.
            for (Index i = 0; i < n; ++i)
                for (Index j = 0; j < n; ++j) {
                    if (j > i || j <= i - 3) {
                        EXPECT_EQ(h.weights(i, j), 0.f) << i << ", " << j;
                    }
                }
            EXPECT_NEAR(h.weights.row(n - 1).segment(n - 3, 3).sum(), 1.f, 1e-6f);
        }
    // The plain causal mask asked for by a control is Mistral's windowed one; another mask is not.
    attn::model::RunControls causal, none;
    causal.mask = attn::model::own_mask(model->info());
    none.mask = attn::MaskSpec{};
    EXPECT_EQ(attn::model::layer_controls(*model, causal, 0).params.mask.kind,
              attn::MaskKind::CausalWindow);
    EXPECT_EQ(attn::model::layer_controls(*model, none, 0).params.mask.kind, attn::MaskKind::None);
    // Without sliding_window the family's layers are plainly causal.
    write_folder(dir.path.string(), llama_weights(2, 17), 2);
    EXPECT_EQ(attn::llama::Model::open(dir.path.string())->layer_params(0).mask.kind,
              attn::MaskKind::Causal);
}

/// Records each head's z and the attention block's output of one layer.
struct HookRecorder : attn::model::Hooks {
    int layer = 1;
    std::vector<Matrix> zs;
    Matrix attn;
    void z(int l, int, Index, Matrix& m) override {
        if (l == layer) zs.push_back(m);
    }
    void attn_out(int l, Index, const Matrix& out) override {
        if (l == layer) attn = out;
    }
};

TEST(LlamaIdentity, HeadsAndFrozenNormRebuildTheRun) {
    io_test::TempDir dir;
    write_folder(dir.path.string(), llama_weights(2, 21), 2, {{"attention_bias", true}});
    // attention_bias needs biases: the writer above has none, so the folder is refused by name.
    EXPECT_THROW(attn::llama::Model::open(dir.path.string()), attn::FormatError);
    write_folder(dir.path.string(), llama_weights(2, 21), 2);
    const auto model = attn::llama::Model::open(dir.path.string());
    HookRecorder rec;
    const auto run = attn::model::run(*model, kIds, {}, &rec);
    ASSERT_EQ(rec.zs.size(), std::size_t(kHeads));
    Matrix sum = Matrix::Zero(rec.attn.rows(), rec.attn.cols());
    for (int h = 0; h < kHeads; ++h)
        sum += model->head_to_residual(1, h, rec.zs[std::size_t(h)]);
    sum.rowwise() += model->attention_bias(1).transpose();
    EXPECT_LT((sum - rec.attn).cwiseAbs().maxCoeff(), 1e-5f * rec.attn.cwiseAbs().maxCoeff());
    const Matrix last = run.inputs.back().bottomRows(1);
    const auto norm = model->final_norm(last);
    EXPECT_FALSE(norm.centre);
    const attn::Vector y =
        norm.gain.cwiseProduct(last.row(0).transpose()) * norm.inv_scale + norm.bias;
    for (std::int32_t t : {0, 7, kVocab - 1})
        EXPECT_NEAR(model->unembedding(t).dot(y), run.logits[t],
                    1e-4f * run.logits.cwiseAbs().maxCoeff());
}

}  // namespace

namespace {

TEST(LlamaWeights, AModelLargerThanTheBudgetIsRefusedNamingItsSize) {
    io_test::TempDir dir;
    write_folder(dir.path.string(), llama_weights(2, 3), 2);
    attn::set_memory_budget(20000);
    try {
        attn::llama::Model::open(dir.path.string());
        ADD_FAILURE() << "a model over the budget opened";
    } catch (const attn::ResourceError& e) {
        // 2 layers of 24 × 24 … in float32: the message names the weights and their size.
        EXPECT_NE(std::string(e.what()).find("the weights of"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("kB"), std::string::npos) << e.what();
    }
    attn::set_memory_budget(0);
}

}  // namespace
