// AttnScope core — the encoder–decoder interface (Marian, T5): an encoder pass over the source,
// then a decoder whose layers attend to themselves (causal) and to the encoder's output
// (cross-attention), with a key/value cache for generation. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attn/models/hooks.hpp"
#include "attn/models/model.hpp"
#include "attn/tokenizers/tokenizer.hpp"
#include "attn/util/types.hpp"

namespace attn::model {

/// What an encoder–decoder is: for messages, the CLI and the arrays it writes.
struct Seq2SeqInfo {
    std::string family;   ///< config.json's model_type: "marian", "t5"
    std::string display;  ///< "Marian", "T5"
    int encoder_layers = 0, decoder_layers = 0;
    int heads = 0;  ///< heads of every attention (encoder, decoder and cross)
    int d_model = 0;
    int head_dim = 0;                ///< d_k of each head
    int vocab = 0;                   ///< rows of the output head: the logits' width
    int source_vocab = 0;            ///< rows of the encoder's embedding
    std::int32_t decoder_start = 0;  ///< decoder_start_token_id: the decoder's first input
    std::int32_t eos = 0;            ///< eos_token_id: ends a translation
    std::int32_t pad = 0;            ///< pad_token_id
    bool scales_scores = true;       ///< the family's own scores are multiplied by 1/√head_dim
    int max_positions =
        0;  ///< positions the decoder has (Marian's max_position_embeddings); 0: any
    /// Tokens a translation never emits: config.json's bad_words_ids of one token (opus-mt
    /// bans its <pad>, which is also the decoder's start token).
    std::vector<std::int32_t> banned;
    std::string dtype;  ///< the weights' type on disk
    std::string folder;
};

/// The controls of an encoder–decoder run.
struct Seq2SeqControls {
    /// "Scale by 1/√d_k" on or off in every attention; none: the family's own (Marian scales,
    /// T5 does not).
    std::optional<bool> scale;
    std::vector<Site> ablate;  ///< heads whose output is replaced (as ablation says), as typed
    AblationMode ablation = AblationMode::Zero;  ///< zero, or the mean over the run's positions
    std::vector<Knockout> knockouts;             ///< edges removed (teacher-forced runs only)
    bool operator==(const Seq2SeqControls&) const = default;
};

/// How one attention block runs its heads: the scores' multiplier, the heads zero-ablated, and
/// hooks called on each head's weights (pattern) and output z, as model::Hooks of layer LAYER.
struct HeadStep {
    float multiplier = 1.f;
    std::vector<char> ablated;      ///< per head, true: its output zeroed; empty: none
    model::Hooks* hooks = nullptr;  ///< none: no hook
    int layer = 0;
};

/// Hooks of an encoder–decoder run, one per attention (none: no hook). Encoder and Decoder also
/// see their stack's residual stream (resid_pre entering each layer, resid_final leaving the
/// last, before a final norm).
struct Seq2SeqHooks {
    model::Hooks *encoder = nullptr, *decoder = nullptr, *cross = nullptr;
};

/// One attention's keys and values, per head (rows × head_dim each): a decoder layer's
/// self-attention (rows grow by one a step) or its cross-attention (the source, computed once).
struct KeyValues {
    std::vector<Matrix> k, v;
};

/// A decoder's cache between steps: each layer's self and cross keys/values.
struct DecoderCache {
    std::vector<KeyValues> self, cross;
    Index length = 0;  ///< target positions already fed
    Index source = 0;  ///< source positions
};

struct Seq2SeqDescription;

/// Attention weights by layer, then head (queries × keys each).
using LayerWeights = std::vector<std::vector<Matrix>>;

/// A family's encoder–decoder, block by block; the driver (encode, decode) sequences them.
class Seq2SeqModel {
  public:
    virtual ~Seq2SeqModel() = default;
    /// What the model is.
    virtual const Seq2SeqInfo& info() const = 0;
    /// The encoder's input rows for source IDS (throws ArgumentError for an id past the vocab).
    virtual Matrix embed_source(const std::vector<std::int32_t>& ids) const = 0;
    /// The decoder's input rows for target IDS at positions FIRST, FIRST + 1, ….
    virtual Matrix embed_target(const std::vector<std::int32_t>& ids, Index first) const = 0;
    /// Encoder layer L on X (in place), its heads run as STEP says; WEIGHTS (when given) gets
    /// each head's weights.
    virtual void encoder_layer(int l, Matrix& x, const HeadStep& step,
                               std::vector<Matrix>* weights) const = 0;
    /// After the last encoder layer (T5's final norm; nothing for Marian).
    virtual void encoder_end(Matrix& x) const = 0;
    /// Decoder layer L's cross-attention keys and values of the encoder's output ENCODED.
    virtual KeyValues cross_keys(int l, const Matrix& encoded) const = 0;
    /// Decoder layer L on X, the rows of positions [FIRST, FIRST + rows) (in place): SELF gets
    /// their keys and values appended, CROSS is read; the heads' weights go to SELF_W, CROSS_W.
    virtual void decoder_layer(int l, Matrix& x, Index first, KeyValues& self,
                               const KeyValues& cross, const HeadStep& self_step,
                               const HeadStep& cross_step, std::vector<Matrix>* self_w,
                               std::vector<Matrix>* cross_w) const = 0;
    /// The logits of the decoder's last hidden rows X (final norm, head, bias): rows × vocab.
    virtual Matrix logits(const Matrix& x) const = 0;
    /// Both stacks as blocks (models/seq2seq_description.hpp) for the reverse pass; throws
    /// ArgumentError naming the family when it has none.
    virtual Seq2SeqDescription describe() const;
};

/// An encoder–decoder folder opened whole: its weights and its source and target tokenizers
/// (one and the same for T5).
struct Seq2SeqFolder {
    std::string dir;
    std::shared_ptr<const Seq2SeqModel> model;
    std::shared_ptr<const Tokenizer> source, target;
};

/// The multiplier of every score under CONTROLS: 1/√head_dim when scaled, else 1.
float score_multiplier(const Seq2SeqInfo& info, const Seq2SeqControls& controls);

/// How COMPONENT's layer L runs its heads under CONTROLS.
HeadStep head_step(const Seq2SeqInfo& info, const Seq2SeqControls& controls, Component component,
                   int l);

/// Throws ArgumentError naming a head of CONTROLS.ablate or CONTROLS.knockouts the model does
/// not have.
void check_heads(const Seq2SeqInfo& info, const Seq2SeqControls& controls);

/// The encoder's output for source IDS; ENCODER_WEIGHTS (when given) gets [layer][head].
Matrix encode(const Seq2SeqModel& model, const std::vector<std::int32_t>& ids,
              const Seq2SeqControls& controls, LayerWeights* encoder_weights = nullptr,
              const Seq2SeqHooks* hooks = nullptr);

/// An empty decoder cache over ENCODED (each layer's cross keys and values computed once).
DecoderCache start_decoder(const Seq2SeqModel& model, const Matrix& encoded);

/// Feeds target IDS at the cache's next positions and returns their logits (rows × vocab);
/// SELF_W and CROSS_W (when given) get [layer][head] of these rows. Knockouts and mean ablation
/// need the whole target at once (an empty cache): else ArgumentError.
Matrix decode(const Seq2SeqModel& model, const std::vector<std::int32_t>& ids, DecoderCache& cache,
              const Seq2SeqControls& controls, LayerWeights* self_w = nullptr,
              LayerWeights* cross_w = nullptr, const Seq2SeqHooks* hooks = nullptr);

/// A teacher-forced run: the source encoded, the whole target fed at once.
struct Seq2SeqRun {
    std::vector<std::int32_t> source, target;  ///< target: the decoder's inputs
    LayerWeights encoder, decoder, cross;
    Matrix logits;  ///< target rows × vocab
};

/// Runs SOURCE through the encoder and TARGET (the decoder's inputs) through the decoder.
Seq2SeqRun teacher_forced(const Seq2SeqModel& model, const std::vector<std::int32_t>& source,
                          const std::vector<std::int32_t>& target, const Seq2SeqControls& controls,
                          const Seq2SeqHooks* hooks = nullptr);

/// Whether DIR's config.json names an encoder–decoder family.
bool is_seq2seq_folder(const std::string& dir);

/// Opens DIR as the encoder–decoder family its config.json names; a decoder-only or unknown
/// model_type is refused by name (FormatError).
Seq2SeqFolder open_seq2seq(const std::string& dir);

}  // namespace attn::model
