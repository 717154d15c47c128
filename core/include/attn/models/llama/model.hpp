// AttnScope core — the Llama family (llama, mistral, qwen2, qwen3, and the near-Llama phi3,
// olmo2 and mixtral) behind the model interface.
// GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "attn/blocks/projections.hpp"
#include "attn/blocks/rotary.hpp"
#include "attn/models/run.hpp"
#include "attn/weights/weights.hpp"

namespace attn::llama {

using model::FloatTensor;

/// The fields of a Llama-family config.json that the forward pass needs.
struct Config {
    std::string model_type;  ///< "llama", "mistral", "qwen2", "qwen3", "phi3", "olmo2", "mixtral"
    int layers = 0, hidden = 0, intermediate = 0, heads = 0, kv_heads = 0, head_dim = 0;
    int vocab = 0, max_positions = 0;
    double rms_norm_eps = 1e-6;
    blocks::RopeSpec rope;       ///< rope_theta, rope_scaling; rotary_dim = head_dim
    bool qkv_bias = false;       ///< q/k/v projections have biases (qwen2 always; attention_bias)
    bool o_bias = false;         ///< o_proj has a bias (llama's and qwen3's attention_bias)
    bool mlp_bias = false;       ///< llama's mlp_bias
    bool qk_norm = false;        ///< qwen3's per-head RMSNorm of q and k before rotary positions
    bool tied = false;           ///< lm_head is the token embedding (tie_word_embeddings)
    int sliding_window = 0;      ///< Mistral: a query sees keys in (i − window, i]; 0: no window
    bool fused_qkv = false;      ///< phi3's qkv_proj: q's rows, then k's, then v's
    bool fused_gate_up = false;  ///< phi3's gate_up_proj: gate's rows, then up's
    bool qk_norm_whole = false;  ///< olmo2's RMSNorm of q and k over the whole projection
    bool post_norms = false;     ///< olmo2: x + norm(attn(x)), x + norm(mlp(x)); no pre-norm
    int experts = 0;             ///< mixtral's num_local_experts (0: a dense MLP)
    int experts_per_token = 0;   ///< mixtral's num_experts_per_tok
};

/// Phi-3's config.json fields beyond Llama's (J: the parsed file at PATH): fused projections,
/// sliding_window, rope_scaling longrope (its factors and attention factor).
void read_phi3(const nlohmann::json& j, const std::string& path, Config& c);
/// OLMo-2's: attention_bias, norms after the blocks, q_norm / k_norm over the projections.
void read_olmo2(const nlohmann::json& j, const std::string& path, Config& c);
/// Mixtral's: num_local_experts, num_experts_per_tok, sliding_window.
void read_mixtral(const nlohmann::json& j, const std::string& path, Config& c);

/// Reads PATH (config.json); throws FormatError naming the file and the field (an unknown
/// rope_scaling type is refused by name).
Config read_config(const std::string& path);

/// The configuration a GGUF file of architecture llama, qwen2 or phi3 states in its metadata
/// (llama.block_count, llama.embedding_length, …); throws FormatError naming the file and the key.
Config gguf_config(const model::GgufFile& file);

/// RoPE's inverse frequencies θ_i (head_dim / 2 of them), rope_scaling applied.
std::vector<double> rope_frequencies(const Config& c);

/// A Llama-family model from a Hugging Face folder (config.json + safetensors), float32.
class Model : public model::Model {
  public:
    /// Opens DIR; checks every tensor's presence, shape and values; throws FormatError /
    /// ShapeError / NonFiniteError naming the file and the tensor.
    static std::shared_ptr<Model> open(const std::string& dir);
    /// Opens a GGUF FILE of architecture llama, qwen2 or phi3 (its tensors kept quantised).
    static std::shared_ptr<Model> open_gguf(std::shared_ptr<const model::GgufFile> file);

    /// The model's configuration.
    const Config& config() const { return config_; }

    const model::ModelInfo& info() const override { return info_; }
    /// Ids from TOKENS on are padding rows: the tokenizer (of TOKENS ids) has none of them.
    void set_text_vocab(int tokens) { info_.text_vocab = tokens; }
    Matrix embed(const std::vector<std::int32_t>& ids, Index first) const override;
    /// Mistral (sliding_window): a causal window on every layer.
    AttentionParams layer_params(int l) const override;
    /// Phi-3's longrope: a run's frequencies depend on its length (short or long factors).
    bool prefix_holds(Index prefix_length, Index n) const override;
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
    /// Builds the model of config C from W (DIR: the folder or file, for messages).
    static std::shared_ptr<Model> assemble(Config c, std::unique_ptr<model::Weights> w,
                                           const std::string& dir);
    struct Block {
        FloatTensor input_norm, post_norm, ff_norm, q_norm, k_norm;
        Linear q, k, v, o, gate, up, down;
        Linear qkv, gate_up;             ///< phi3's fused projections
        Linear router;                   ///< mixtral's gate
        std::vector<Linear> w1, w2, w3;  ///< mixtral's experts (gate, down, up)
    };
    /// Layer L's q, k and v rows of H (n × heads · head_dim, …), before the heads split.
    void project(const Block& b, const Matrix& h, Matrix& q, Matrix& k, Matrix& v) const;
    /// Layer L's feed-forward block on H: SwiGLU, or mixtral's experts (routing into OUT).
    Matrix feed_forward(const Block& b, const Matrix& h, Index first,
                        const model::LayerAttention* past, model::LayerAttention& out) const;
    /// Rotates the rows of X (positions first, first + 1, …; head_dim wide) in place.
    void rotate(Matrix& x, Index first) const;
    Config config_;
    model::ModelInfo info_;
    std::unique_ptr<model::Weights> weights_;
    FloatTensor embed_, norm_, lm_head_;
    std::vector<Block> blocks_;
    std::vector<double> inv_freq_;
    /// The frequencies of a run of N positions (inv_freq_ unless longrope switches).
    std::vector<double> frequencies(Index n) const;
};

/// Opens DIR: config.json, the weights and tokenizer.json; errors name the file.
model::ModelFolder open_folder(const std::string& dir);

/// Opens a GGUF file of architecture llama, qwen2 or phi3 with its embedded tokenizer.
model::ModelFolder open_gguf(const std::string& path);

}  // namespace attn::llama
