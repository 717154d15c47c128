// AttnScope core — the GPT-NeoX family (Pythia) behind the model interface, composed of blocks.
// GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attn/blocks/mlp.hpp"
#include "attn/blocks/projections.hpp"
#include "attn/blocks/rotary.hpp"
#include "attn/models/run.hpp"
#include "attn/weights/weights.hpp"

namespace attn::gpt_neox {

using model::FloatTensor;

/// The fields of a GPT-NeoX config.json the forward pass reads.
struct Config {
    int layers = 0, hidden = 0, intermediate = 0, heads = 0, head_dim = 0, vocab = 0;
    int max_positions = 0;
    double layer_norm_eps = 1e-5;
    blocks::RopeSpec rope;  ///< rotary_dim = int(head_dim · rotary_pct); rotary_emb_base
    blocks::Activation act = blocks::Activation::GeluExact;  ///< hidden_act
    bool parallel = true;  ///< use_parallel_residual: x + attn(ln1 x) + mlp(ln2 x)
    bool bias = true;      ///< attention_bias: query_key_value and dense have biases
    bool tied = false;     ///< tie_word_embeddings: embed_out is embed_in
};

/// Reads PATH (config.json); throws FormatError naming the file and the field (another
/// model_type, an odd rotary dimension, an unknown activation or rope_scaling type).
Config read_config(const std::string& path);

/// A GPT-NeoX model from a Hugging Face folder (config.json + safetensors), float32.
class Model : public model::Model {
  public:
    /// Opens DIR; checks every tensor's presence, shape and values; throws FormatError /
    /// ShapeError / NonFiniteError naming the file and the tensor.
    static std::shared_ptr<Model> open(const std::string& dir);

    /// The model's configuration.
    const Config& config() const { return config_; }
    const model::ModelInfo& info() const override { return info_; }
    /// Ids from TOKENS on are padding rows: the tokenizer (of TOKENS ids) has none of them.
    void set_text_vocab(int tokens) { info_.text_vocab = tokens; }
    Matrix embed(const std::vector<std::int32_t>& ids, Index first) const override;
    void layer(int l, Matrix& x, Index first, const model::LayerAttention* past,
               const model::LayerControls& controls, model::LayerAttention& out,
               model::Hooks& hooks) const override;
    Vector logits(const Matrix& x) const override;
    Matrix head_to_residual(int l, int h, const Matrix& z) const override;
    Vector attention_bias(int l) const override;
    FrozenNorm final_norm(const Matrix& x) const override;
    Vector unembedding(std::int32_t token, float* bias = nullptr) const override;
    /// Layer L's blocks and weights for the reverse pass (describe.cpp).
    model::LayerDescription describe_layer(int l) const override;
    model::OutputDescription describe_output() const override;

  private:
    using Linear = blocks::TensorLinear;
    struct Block {
        FloatTensor ln1_w, ln1_b, ln2_w, ln2_b;
        Linear qkv, dense, up, down;
    };
    Config config_;
    model::ModelInfo info_;
    std::unique_ptr<model::Weights> weights_;
    FloatTensor embed_, lnf_w_, lnf_b_, head_;
    std::vector<Block> blocks_;
    std::vector<double> inv_freq_;
};

/// Opens DIR: config.json, the weights and tokenizer.json; errors name the file.
model::ModelFolder open_folder(const std::string& dir);

}  // namespace attn::gpt_neox
