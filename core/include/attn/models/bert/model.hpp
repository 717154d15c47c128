// AttnScope core — the BERT family (post-LN bidirectional encoder, masked-LM head) behind the
// model interface. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attn/models/post_norm.hpp"
#include "attn/models/run.hpp"
#include "attn/weights/safetensors.hpp"

namespace attn::bert {

/// The fields of a Hugging Face BERT config.json that the forward pass needs.
struct Config {
    int layers = 0, heads = 0, hidden = 0, intermediate = 0, positions = 0, vocab = 0;
    int type_vocab = 2;
    double layer_norm_eps = 1e-12;
    std::string hidden_act = "gelu";  ///< "gelu" (exact erf), "gelu_new" / "gelu_pytorch_tanh"
};

/// Reads PATH (config.json); throws FormatError naming the file and the field when it is not a
/// BERT config (model_type bert, a known hidden_act, absolute positions, heads dividing hidden).
Config read_config(const std::string& path);

/// BERT weights from a Hugging Face folder (BertForMaskedLM with its "bert." prefix and cls head,
/// or BertModel without either), mapped.
class Model : public model::Model, public model::PostNormBlocks {
  public:
    /// Opens DIR; SEP, the tokenizer's [SEP] id, makes the tokens after the first [SEP] sentence
    /// B (token type 1). Checks every tensor's presence and shape and that no value is NaN or
    /// infinite; throws FormatError / ShapeError / NonFiniteError naming the tensor.
    static std::shared_ptr<Model> open(const std::string& dir,
                                       std::optional<std::int32_t> sep = {});

    /// The model's configuration.
    const Config& config() const { return config_; }
    /// True when the folder has the masked-LM head (cls.predictions): logits exist.
    bool has_head() const { return has_head_; }
    /// Each position's token type: 0, and 1 after the first [SEP] that is not the last token.
    std::vector<int> token_types(const std::vector<std::int32_t>& ids) const;

    const model::ModelInfo& info() const override { return info_; }
    /// Ids from TOKENS on are padding rows: the tokenizer (of TOKENS ids) has none of them.
    void set_text_vocab(int tokens) { info_.text_vocab = tokens; }
    Matrix embed(const std::vector<std::int32_t>& ids, Index first) const override;
    void layer(int l, Matrix& x, Index first, const model::LayerAttention* past,
               const model::LayerControls& controls, model::LayerAttention& out,
               model::Hooks& hooks) const override;
    /// The masked-LM head's logits at row X; empty for a BertModel folder (no head).
    Vector logits(const Matrix& x) const override;
    Matrix head_to_residual(int l, int h, const Matrix& z) const override;
    Vector attention_bias(int l) const override;
    /// Always throws ArgumentError: BERT normalises after each block, so no final norm is linear.
    FrozenNorm final_norm(const Matrix& x) const override;
    Vector unembedding(std::int32_t token, float* bias = nullptr) const override;
    /// Layer L's blocks and weights for the reverse pass (describe.cpp).
    model::LayerDescription describe_layer(int l) const override;
    model::OutputDescription describe_output() const override;
    /// Layer L's attention LayerNorm (attention.output.LayerNorm) frozen at row U.
    FrozenNorm post_attention_norm(int l, const Matrix& u) const override;

  private:
    using Tensor = model::FloatTensor;
    struct Block {
        Tensor q_w, q_b, k_w, k_b, v_w, v_b, o_w, o_b, ln1_w, ln1_b, in_w, in_b, out_w, out_b,
            ln2_w, ln2_b;
    };
    Config config_;
    model::ModelInfo info_;
    std::unique_ptr<model::SafetensorsFile> file_;
    std::optional<std::int32_t> sep_;
    Tensor word_, position_, type_, emb_ln_w_, emb_ln_b_;
    std::vector<Block> blocks_;
    bool has_head_ = false;
    Tensor head_w_, head_b_, head_ln_w_, head_ln_b_, decoder_w_, decoder_b_;
    bool tied_ = true;  ///< the decoder is the word embedding (no cls.predictions.decoder.weight)
};

/// The tokenizer of a BERT folder DIR: tokenizer.json when a reader of it is linked, else
/// vocab.txt as WordPiece (lower-cased unless tokenizer_config.json says do_lower_case false).
/// Throws FormatError naming the folder when it has neither.
std::shared_ptr<const model::Tokenizer> open_tokenizer(const std::string& dir);

/// Opens DIR: config.json, model.safetensors and the tokenizer; errors name the file.
model::ModelFolder open_folder(const std::string& dir);

}  // namespace attn::bert
