// AttnScope core — the Gemma family (Gemma 2, Gemma 3 text) behind the model interface, composed
// of blocks. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attn/blocks/mlp.hpp"
#include "attn/blocks/norms.hpp"
#include "attn/blocks/projections.hpp"
#include "attn/blocks/rotary.hpp"
#include "attn/models/run.hpp"
#include "attn/weights/weights.hpp"

namespace attn::gemma {

using model::FloatTensor;

/// The fields of a Gemma 2 or Gemma 3 text config.json the forward pass reads (transformers'
/// defaults where a field is absent, as Gemma2Config and Gemma3TextConfig have them).
struct Config {
    std::string model_type;  ///< "gemma2" or "gemma3_text" (a "gemma3" folder's text_config)
    int layers = 0, hidden = 0, intermediate = 0, heads = 0, kv_heads = 0, head_dim = 0;
    int vocab = 0, max_positions = 0;
    double rms_norm_eps = 1e-6;
    double query_pre_attn_scalar = 256;  ///< scores are scaled by its −½ power
    float attn_softcap = 0.f;            ///< attn_logit_softcapping; 0: none
    float final_softcap = 0.f;           ///< final_logit_softcapping; 0: none
    int sliding_window = 0;              ///< a window layer's query sees keys in (i − w, i]
    std::vector<bool> window_layers;     ///< per layer: true for a sliding-window layer
    blocks::RopeSpec rope;               ///< global layers: rope_theta and rope_scaling
    blocks::RopeSpec local_rope;         ///< window layers (Gemma 3: rope_local_base_freq)
    blocks::Activation act = blocks::Activation::GeluTanh;  ///< hidden_activation
    bool qk_norm = false;         ///< Gemma 3: (1 + w) RMSNorm of q and k over head_dim
    bool attention_bias = false;  ///< q/k/v/o projections have biases
    bool tied = true;             ///< lm_head is the token embedding (tie_word_embeddings)
};

/// Reads PATH (config.json); throws FormatError naming the file and the field (another
/// model_type, an unknown activation, rope_scaling or layer type).
Config read_config(const std::string& path);

/// The configuration a GGUF file of architecture gemma2 or gemma3 states in its metadata; throws
/// FormatError naming the file and the key.
Config gguf_config(const model::GgufFile& file);

/// A Gemma model from a Hugging Face folder (config.json + safetensors) or a GGUF file, float32.
class Model : public model::Model {
  public:
    /// Opens DIR; checks every tensor's presence, shape and values; throws FormatError /
    /// ShapeError / NonFiniteError naming the file and the tensor.
    static std::shared_ptr<Model> open(const std::string& dir);
    /// Opens a GGUF FILE of architecture gemma2 or gemma3 (kept quantised; norms stored 1 + w).
    static std::shared_ptr<Model> open_gguf(std::shared_ptr<const model::GgufFile> file);

    /// The model's configuration.
    const Config& config() const { return config_; }
    const model::ModelInfo& info() const override { return info_; }
    /// Ids from TOKENS on are padding rows: the tokenizer (of TOKENS ids) has none of them.
    void set_text_vocab(int tokens) { info_.text_vocab = tokens; }
    Matrix embed(const std::vector<std::int32_t>& ids, Index first) const override;
    /// query_pre_attn_scalar^−½, the soft-cap, and the window on sliding-window layers.
    AttentionParams layer_params(int l) const override;
    void layer(int l, Matrix& x, Index first, const model::LayerAttention* past,
               const model::LayerControls& controls, model::LayerAttention& out,
               model::Hooks& hooks) const override;
    /// The final norm, the tied head, then final_logit_softcapping.
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
    /// The tensors' names: a folder's, or a GGUF file's as gguf_hf_name gives them.
    struct Names {
        std::string prefix, post_attention, pre_feedforward;
    };
    static std::shared_ptr<Model> assemble(Config c, std::unique_ptr<model::Weights> w,
                                           const std::string& dir, const Names& names,
                                           blocks::Gain gain);
    struct Block {
        FloatTensor input_norm, post_attn_norm, pre_ff_norm, post_ff_norm, q_norm, k_norm;
        Linear q, k, v, o, gate, up, down;
    };
    Matrix norm(const Matrix& x, const FloatTensor& w) const {
        return blocks::rms_norm(x, w, config_.rms_norm_eps, gain_);
    }
    Config config_;
    model::ModelInfo info_;
    std::unique_ptr<model::Weights> weights_;
    blocks::Gain gain_ = blocks::Gain::OnePlusW;  ///< GGUF files store 1 + w: Gain::W
    FloatTensor embed_, norm_, lm_head_;
    std::vector<Block> blocks_;
    std::vector<double> inv_freq_, local_inv_freq_;
};

/// Opens DIR: config.json, the weights and tokenizer.json; errors name the file.
model::ModelFolder open_folder(const std::string& dir);

/// Opens a GGUF file of architecture gemma2 or gemma3 with its embedded tokenizer.
model::ModelFolder open_gguf(const std::string& path);

}  // namespace attn::gemma
