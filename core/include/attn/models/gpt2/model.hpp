// AttnScope core — the GPT-2 family behind the model interface. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attn/models/gpt2/bpe_tokenizer.hpp"
#include "attn/models/run.hpp"
#include "attn/weights/safetensors.hpp"

namespace attn::gpt2 {

/// The fields of a Hugging Face GPT-2 config.json that the forward pass needs.
struct Config {
    int n_layer = 0, n_head = 0, n_embd = 0, n_positions = 0, vocab_size = 0;
    int n_inner = 0;  ///< the MLP's width (config.json's n_inner; null: 4 · n_embd)
    double layer_norm_epsilon = 1e-5;
    bool scale_attn_weights = true;                ///< scores divided by √d_k
    bool scale_attn_by_inverse_layer_idx = false;  ///< layer l's scores divided by l + 1 too
};

/// Reads PATH (config.json); throws FormatError naming the file and the field when it is not a
/// GPT-2 config (model_type gpt2, activation gelu_new, n_head dividing n_embd).
Config read_config(const std::string& path);

/// GPT-2's own mask: each token sees itself and the tokens before it.
inline MaskSpec causal() {
    MaskSpec m;
    m.kind = MaskKind::Causal;
    return m;
}

using model::FloatTensor;
using model::LayerAttention;
using model::ModelFolder;
using model::Run;
using model::RunControls;
using model::SafetensorsFile;
using model::TensorInfo;

/// GPT-2 weights from a Hugging Face folder (config.json + model.safetensors), mapped.
class Model : public model::Model {
  public:
    /// Opens DIR; checks every tensor's presence and shape and that no value is NaN or infinite;
    /// throws FormatError / ShapeError / NonFiniteError naming the tensor.
    static std::shared_ptr<Model> open(const std::string& dir);

    /// model::run of this model (see there).
    Run run(const std::vector<std::int32_t>& ids, const RunControls& controls = {},
            Progress* progress = nullptr, const Run* prefix = nullptr) const {
        return model::run(*this, ids, controls, nullptr, progress, prefix);
    }
    /// The model's configuration.
    const Config& config() const { return config_; }

    const model::ModelInfo& info() const override { return info_; }
    /// Ids from TOKENS on are padding rows: the tokenizer (of TOKENS ids) has none of them.
    void set_text_vocab(int tokens) { info_.text_vocab = tokens; }
    Matrix embed(const std::vector<std::int32_t>& ids, Index first) const override;
    void layer(int l, Matrix& x, Index first, const LayerAttention* past,
               const model::LayerControls& controls, LayerAttention& out,
               model::Hooks& hooks) const override;
    Vector logits(const Matrix& x) const override;
    Matrix logits_rows(const Matrix& x) const override;
    Matrix head_to_residual(int l, int h, const Matrix& z) const override;
    Vector attention_bias(int l) const override;
    FrozenNorm final_norm(const Matrix& x) const override;
    Vector unembedding(std::int32_t token, float* bias = nullptr) const override;
    /// Layer L's blocks and weights for the reverse pass (describe.cpp).
    model::LayerDescription describe_layer(int l) const override;
    model::OutputDescription describe_output() const override;

  private:
    struct Block {
        FloatTensor ln1_w, ln1_b, attn_w, attn_b, proj_w, proj_b, ln2_w, ln2_b, fc_w, fc_b,
            mlp_proj_w, mlp_proj_b;
    };
    Config config_;
    model::ModelInfo info_;
    std::unique_ptr<SafetensorsFile> file_;
    FloatTensor wte_, wpe_, lnf_w_, lnf_b_;
    std::vector<Block> blocks_;
};

/// Opens DIR: config.json, model.safetensors, vocab.json and merges.txt; errors name the file.
ModelFolder open_folder(const std::string& dir);

}  // namespace attn::gpt2
