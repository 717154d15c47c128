// AttnScope core — the interface every model family implements: config → weights → forward
// with hooks. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attn/attention/attention.hpp"
#include "attn/attention/mask.hpp"
#include "attn/models/hooks.hpp"
#include "attn/tokenizers/tokenizer.hpp"

namespace attn::model {

struct LayerDescription;   // models/layer_description.hpp
struct OutputDescription;  // models/layer_description.hpp

/// What a model is: for the Model dock, messages, memory estimates and which controls apply.
struct ModelInfo {
    std::string family;   ///< config.json's model_type: "gpt2", "llama", "qwen2", "bert", …
    std::string display;  ///< the family as users know it: "GPT-2", "Llama", "Qwen2", "BERT"
    int layers = 0;
    int heads = 0;     ///< query heads
    int kv_heads = 0;  ///< key/value heads (= heads without grouped-query attention)
    int d_model = 0;
    int head_dim = 0;
    int vocab = 0;  ///< rows of the embedding and the output head
    /// Ids the tokenizer has: ids in [text_vocab, vocab) are padding rows no token stands for
    /// (Qwen2.5: 151 936 rows, 151 669 tokens), never chosen or listed (vocabulary.hpp);
    /// 0: every id is a token.
    int text_vocab = 0;
    int max_positions = 0;
    bool causal = true;   ///< false: bidirectional (BERT)
    bool rotary = false;  ///< rotary positions (the "rotary positions off" control applies)
    /// Soft-caps its attention scores (Gemma 2: the "soft-capping off" control applies).
    bool softcap = false;
    bool pre_norm = true;  ///< norm before each block (direct logit attribution needs it)
    /// Causal families with a sliding window (Mistral): with its causal mask a query sees only
    /// keys in (i − window, i]; 0: every earlier key.
    int sliding_window = 0;
    std::string dtype;  ///< the weights' type on disk: "F32", "F16", "BF16"
    std::int64_t parameters = 0;
    double file_bytes = 0;  ///< bytes of the weight files
    std::string folder;     ///< the folder the weights came from, for messages
    /// Layer l's tensors are named layer_prefix + l + "." (e.g. "transformer.h."), for messages.
    std::string layer_prefix;
};

/// The model's own mask: causal for decoders, none for encoders.
MaskSpec own_mask(const ModelInfo& info);

/// What the controls of a run are and where they apply.
struct RunControls {
    bool scale = true;             ///< multiply scores by 1/√d_k (every family does)
    float temperature = 1.f;       ///< τ dividing the scores
    std::optional<MaskSpec> mask;  ///< none: the model's own (own_mask)
    bool rotary = true;            ///< false: rotary positions off (scores without RoPE)
    bool softcap = true;           ///< false: the family's soft-capping of scores off
    std::vector<int> layers;       ///< layers the controls above apply to; empty: all
    Interventions interventions;   ///< ablation and knockout, wherever they name
    bool operator==(const RunControls&) const = default;
};

/// The attention settings of one layer: the family's (Model::layer_params) with the controls
/// applied inside their scope (scaled, τ = 1, own mask, rotary and soft-capping on outside it).
struct LayerControls {
    AttentionParams params;  ///< every score stage and the mask, for attend_head
    bool rotary = true;
};

/// One layer's attention, every head: raw scores, weights and output (HeadResult), and the
/// q, k, v each head used (k and v of a key/value group repeated for each of its query heads;
/// q and k after rotary positions), every position of the run.
struct LayerAttention {
    std::vector<HeadResult> heads;
    std::vector<Matrix> q, k, v;  ///< per query head, n × head_dim
    /// A mixture-of-experts layer's routing of every position: the chosen experts, best first,
    /// and their weights (n × experts per token each); empty for a dense feed-forward block.
    Eigen::Matrix<int, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> router_experts;
    Matrix router_weights;
};

/// A family's weights and forward pass, one layer at a time. The generic driver (run.hpp) owns
/// the residual stream, prefix reuse, scope and hooks; a family only says what one layer does.
class Model {
  public:
    virtual ~Model() = default;
    /// What the model is.
    virtual const ModelInfo& info() const = 0;
    /// The residual stream of IDS at positions [first, first + ids.size()): token (and, where
    /// the family has them, position and token-type) embeddings. IDS holds every id of the run
    /// (BERT's token types depend on the whole sequence); only rows from FIRST are returned.
    virtual Matrix embed(const std::vector<std::int32_t>& ids, Index first) const = 0;
    /// Layer L's attention as the family defines it: its scale factor, soft-cap, position bias
    /// and mask (Mistral's causal window, Gemma 2's window on even layers). The driver applies
    /// the run's controls over it (layer_controls) and hands the result to layer(). Default:
    /// 1/√head_dim, no soft-cap or bias, the model's own mask (own_mask).
    virtual AttentionParams layer_params(int l) const;
    /// Whether the rows of a run of PREFIX_LENGTH positions hold in a longer run of N that
    /// shares them (prefix reuse): not when the length changes every position's computation
    /// (Phi-3's longrope frequencies past its original context). Default: true.
    virtual bool prefix_holds(Index prefix_length, Index n) const {
        (void)prefix_length, (void)n;
        return true;
    }
    /// Runs layer L on X, the residual stream's rows [first, n) (updated in place). PAST, when
    /// FIRST > 0, holds layer L's q, k, v of positions [0, first) from an earlier run; OUT gets
    /// this layer's q, k, v and heads for every position [0, n). Each head's attention goes
    /// through attend_head (run.hpp), and the block outputs through HOOKS (never null).
    virtual void layer(int l, Matrix& x, Index first, const LayerAttention* past,
                       const LayerControls& controls, LayerAttention& out, Hooks& hooks) const = 0;
    /// The logits of the final residual row X (1 × d_model): final norm, then the output head.
    virtual Vector logits(const Matrix& x) const = 0;
    /// The logits of every row of X (rows × vocab): logits() row by row, unless a family reads
    /// its output head once for all rows (the logit lens asks for layers + 1 rows at once).
    virtual Matrix logits_rows(const Matrix& x) const;

    /// Head H of layer L's output z (rows × head_dim) as the residual stream sees it: z · W_O's
    /// rows of that head, without bias (direct attribution, patching).
    virtual Matrix head_to_residual(int l, int h, const Matrix& z) const = 0;
    /// Layer L's attention output bias (zeros when the family has none).
    virtual Vector attention_bias(int l) const = 0;
    /// The final norm of row X with its scale frozen, as the linear map it then is:
    /// norm(y) ≈ gain ⊙ (y − centre·mean(y)) · inv_scale + bias (pre-norm families).
    struct FrozenNorm {
        bool centre = true;  ///< LayerNorm subtracts the mean; RMSNorm does not
        float inv_scale = 1.f;
        Vector gain, bias;
    };
    /// The final norm at row X, frozen (pre-norm families; throws ArgumentError otherwise).
    virtual FrozenNorm final_norm(const Matrix& x) const = 0;
    /// The output head's row for TOKEN (its unembedding vector, d_model) and its bias.
    virtual Vector unembedding(std::int32_t token, float* bias = nullptr) const = 0;

    /// Layer L as the blocks it runs, with their weights (layer_description.hpp): what the
    /// reverse pass (attribution/reverse_pass) differentiates, written once for every family.
    /// Default: throws ArgumentError ("gradient methods need a layer description, not
    /// available for <family>").
    virtual LayerDescription describe_layer(int l) const;
    /// What turns the last residual row into logits: final norm, head, bias. Default: throws
    /// as describe_layer.
    virtual OutputDescription describe_output() const;
};

/// A model folder opened whole: its weights and tokenizer.
struct ModelFolder {
    std::string dir;  ///< the folder it was opened from (sessions reference it)
    std::shared_ptr<const Model> model;
    std::shared_ptr<const Tokenizer> tokenizer;
};

}  // namespace attn::model
