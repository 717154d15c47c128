// AttnScope core — a GPT-2-family model run natively, with attention controls inside the run.
// GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/gpt2/bpe_tokenizer.hpp"
#include "attn/gpt2/safetensors.hpp"
#include "attn/mask.hpp"
#include "attn/progress.hpp"
#include "attn/scene.hpp"

namespace attn::gpt2 {

/// The fields of a Hugging Face GPT-2 config.json that the forward pass needs.
struct Config {
    int n_layer = 0, n_head = 0, n_embd = 0, n_positions = 0, vocab_size = 0;
    double layer_norm_epsilon = 1e-5;
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

/// Where the attention controls of a run apply and what they are.
struct RunControls {
    bool scale = true;         ///< multiply scores by 1/√d_k (GPT-2 does)
    float temperature = 1.f;   ///< τ dividing the scores
    MaskSpec mask = causal();  ///< GPT-2 is causal; None removes the mask
    std::vector<int> layers;   ///< layers the controls apply to; empty: all
};

/// One layer's attention, every head: raw scores, weights and the real q, k, v.
struct LayerAttention {
    std::vector<HeadResult> heads;  ///< raw … weights and output per head (keep_stages)
    std::vector<Matrix> q, k, v;    ///< per head, n × d_k
};

/// The result of running a sequence of token ids.
struct Run {
    std::vector<std::int32_t> ids;
    std::vector<LayerAttention> layers;
    Vector logits;  ///< next-token logits of the last position, [vocab_size]
    /// The residual stream entering each layer and leaving the last (n_layer + 1 of n × d): what
    /// a later run sharing a prefix of ids reuses.
    std::vector<Matrix> inputs;
    Index reused = 0;      ///< leading tokens whose hidden states came from an earlier run
    RunControls controls;  ///< what the run applied
};

/// GPT-2 weights from a Hugging Face folder (config.json + model.safetensors), mapped.
class Model {
  public:
    /// Opens DIR; checks every tensor's presence and shape and that no value is NaN or infinite;
    /// throws FormatError / ShapeError / NonFiniteError naming the tensor.
    static std::shared_ptr<const Model> open(const std::string& dir);

    /// Runs IDS (1 … n_positions of them) through every layer with CONTROLS applied inside the
    /// run, so later layers and the logits see their effect. PROGRESS (optional) is told after
    /// each layer and may cancel (attn::Cancelled). PREFIX, an earlier run of this model with
    /// the same controls, lends the hidden states of the ids it shares at the start (GPT-2 is
    /// causal), so a retyped last word recomputes only its own tokens; it is ignored unless
    /// the mask is causal.
    Run run(const std::vector<std::int32_t>& ids, const RunControls& controls = {},
            Progress* progress = nullptr, const Run* prefix = nullptr) const;

    /// The model's configuration.
    const Config& config() const { return config_; }

  private:
    struct Block {
        FloatTensor ln1_w, ln1_b, attn_w, attn_b, proj_w, proj_b, ln2_w, ln2_b, fc_w, fc_b,
            mlp_proj_w, mlp_proj_b;
    };
    Config config_;
    std::unique_ptr<SafetensorsFile> file_;
    FloatTensor wte_, wpe_, lnf_w_, lnf_b_;
    std::vector<Block> blocks_;
};

/// A Hugging Face GPT-2 folder opened whole: the weights and the tokenizer beside them.
struct ModelFolder {
    std::string dir;  ///< the folder it was opened from (sessions reference it)
    std::shared_ptr<const Model> model;
    std::shared_ptr<const BpeTokenizer> tokenizer;
};

/// Opens DIR: config.json, model.safetensors, vocab.json and merges.txt; errors name the file.
ModelFolder open_folder(const std::string& dir);

/// A run as loaded attention: one component "GPT-2" with every layer's raw scores (so the
/// scene's scaling, temperature and mask apply to them as to any raw scores), q, k, v and the
/// tokens as text (GPT-2's 'Ġ' shown as a space).
AttentionData attention_data(const Run& run, const Model& model, const BpeTokenizer& tokenizer,
                             const std::string& source);

}  // namespace attn::gpt2
