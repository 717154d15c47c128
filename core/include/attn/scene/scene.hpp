// AttnScope core — a scene: everything needed to reproduce one attention computation.
// GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attn/attention/aggregate.hpp"
#include "attn/attention/attention.hpp"
#include "attn/attention/loaded_attention.hpp"
#include "attn/attention/multihead.hpp"
#include "attn/attention/stats.hpp"
#include "attn/models/hooks.hpp"
#include "attn/scene/embedding.hpp"
#include "attn/tokenizers/words.hpp"
#include "attn/util/progress.hpp"

namespace attn {

namespace model {
struct ModelFolder;
struct Run;
}  // namespace model

/// The sentence of the embedded default scene (the classic alignment example).
inline constexpr const char* kDefaultSentence =
    "The agreement on the European Economic Area was signed in August 1992 .";

/// What a scene is. Ask SceneSpec::source() (or is_synthetic/is_loaded/is_model), never whether
/// spec.data or spec.model is null: the rule of which source wins lives once, in source().
enum class SourceKind {
    Synthetic,  ///< computed from seeded (or explicit) embeddings and projections
    Loaded,     ///< attention loaded from a file (SceneSpec::data)
    ModelRun,   ///< a model folder of any family run on the text (SceneSpec::model)
};

/// Every parameter of a scene. Default-constructed, it is the embedded default scene.
///
/// A tagged struct: source() says which of three sources the scene has, and with it which
/// fields mean something —
/// - Synthetic: text/tokens/cross_text, d_model, heads, kv_heads, score, sigma, positional,
///   seed, embeddings, weights;
/// - Loaded: data, component, layer, data_dk;
/// - ModelRun: model, text, model_ids, layer, model_layers, model_rotary, model_softcap,
///   interventions.
/// scale, temperature, mask and merge_words apply to every source. Switch sources with
/// set_synthetic / set_loaded / set_model, which keep them exclusive.
struct SceneSpec {
    std::string text = kDefaultSentence;  ///< tokenised unless tokens is non-empty
    std::vector<std::string> tokens;      ///< explicit tokens (e.g. one per line from a .txt)
    std::string cross_text;               ///< non-empty: cross-attention, keys from this text
    Index d_model = 64;
    Index heads = 4;
    Index kv_heads = 0;  ///< 0 = heads (MHA); 1 = MQA; else GQA
    ScoreKind score = ScoreKind::Dot;
    float sigma = 1.f;  ///< RBF bandwidth
    bool scale = true;
    float temperature = 1.f;
    MaskSpec mask;
    PositionalKind positional = PositionalKind::Sinusoidal;
    std::uint64_t seed = 1992;
    /// Explicit n × d_model token embeddings (query side; `positional` is still added). Shared
    /// and immutable, like `weights` and `data`: copying a spec (an undo step) copies a pointer,
    /// and specs compare them by identity.
    std::shared_ptr<const Matrix> embeddings;
    std::shared_ptr<const MultiHeadWeights> weights;  ///< explicit projections
    std::shared_ptr<const AttentionData> data;  ///< loaded attention: replaces the computation
    Index component = 0, layer = 0;             ///< which block of data is shown
    std::optional<float> data_dk;               ///< override of the component's d_k
    bool merge_words = false;  ///< sub-word pieces merged into words (kWordMergeRule)
    /// A model folder (any family) that runs on `text`: scale, temperature, mask and
    /// model_rotary, model_softcap apply inside the run, in model_layers (empty: every layer), and
    /// `layer` picks the layer shown. Shared, by identity.
    std::shared_ptr<const model::ModelFolder> model;
    /// The ids a model runs when they are not text's own encoding (a generation's tokens, which
    /// a byte-level tokenizer may split otherwise): used while text is their decoding, so any
    /// edit of the text drops them (see run_ids).
    std::vector<std::int32_t> model_ids;
    std::vector<int> model_layers;  ///< layers the controls apply to in a model run; empty: all
    bool model_rotary = true;       ///< false: rotary positions off in model_layers
    bool model_softcap = true;      ///< false: the family's soft-capping off in model_layers
    model::Interventions interventions;  ///< ablated heads and knocked-out edges of a model run

    /// What the scene is: ModelRun when model is set, else Loaded when data is, else Synthetic.
    SourceKind source() const {
        return model ? SourceKind::ModelRun : data ? SourceKind::Loaded : SourceKind::Synthetic;
    }
    /// source() == SourceKind::Synthetic: computed from seeded or explicit inputs.
    bool is_synthetic() const { return source() == SourceKind::Synthetic; }
    /// source() == SourceKind::Loaded: attention loaded from a file.
    bool is_loaded() const { return source() == SourceKind::Loaded; }
    /// source() == SourceKind::ModelRun: a model's run on text.
    bool is_model() const { return source() == SourceKind::ModelRun; }
    /// Makes the scene synthetic: drops the loaded data and the model (the rest stays).
    void set_synthetic() { data.reset(), model.reset(); }
    /// Makes the scene loaded attention d (the model, if any, is dropped).
    void set_loaded(std::shared_ptr<const AttentionData> d) { model.reset(), data = std::move(d); }
    /// Makes the scene a run of model folder m (the loaded data, if any, is dropped).
    void set_model(std::shared_ptr<const model::ModelFolder> m) {
        data.reset(), model = std::move(m);
    }

    /// The tokens of the query side (a model's tokens of text, explicit tokens, or
    /// tokenize(text)).
    std::vector<std::string> query_tokens() const;
    /// A model scene's token ids: model_ids while text is their decoding, else text encoded by
    /// the model's tokenizer — at most LIMIT of them (*MORE: whether more followed).
    std::vector<std::int32_t> run_ids(std::size_t limit = std::size_t(-1),
                                      bool* more = nullptr) const;
    /// Every field equal (defaulted: a new field can never be forgotten; the shared matrices and
    /// data by identity).
    bool operator==(const SceneSpec&) const = default;
};

/// The projection weights compute_scene uses for spec when it has none: seeded from spec.seed.
MultiHeadWeights seeded_weights(const SceneSpec& spec);
/// The embeddings compute_scene uses for tokens when spec has none: hashed from spec.seed, plus
/// spec.positional.
Matrix seeded_embeddings(const std::vector<std::string>& tokens, const SceneSpec& spec);

/// How much of each head a computed scene holds.
enum class Storage {
    Stages,    ///< raw scores and weights n × n (scaled and masked derived) and the output
    Weights,   ///< the weights n × n; a query's scores and output are recomputed on demand
    Streamed,  ///< nothing n × n: per-query normalisers and a block overview; any weight, row or
               ///< region is recomputed from Q and K on demand
};

/// Score cells (queries × keys × heads) up to which every stage is kept.
inline constexpr double kStageCellLimit = 8.0 * 1024 * 1024;
/// Score cells up to which the weights are kept (64 MB of floats); beyond, heads are streamed.
inline constexpr double kWeightCellLimit = 16.0 * 1024 * 1024;
/// Cells per axis of a streamed head's block overview.
inline constexpr int kOverviewCells = 1024;

/// One candidate next token of a model run.
struct NextToken {
    std::int32_t id = 0;
    std::string text;         ///< as a user reads it ('Ġ' shown as a space)
    float probability = 0.f;  ///< softmax of the last position's logits
};

/// The computed scene: every stage of every shown head, with statistics.
struct SceneResult {
    std::vector<std::string> q_tokens, k_tokens;
    std::vector<HeadResult> heads;  ///< the shown layer's heads
    std::vector<HeadStats> stats;   ///< one per head
    Index layer = 0, layers = 1;
    Index d_k = 0;
    /// How the heads are stored — the one answer to "is it streamed, were the stages kept":
    /// Stages (every stage there is, n × n), Weights (weights, output and empty_rows; the *_row
    /// accessors below recompute the score stages) or Streamed (no n × n matrix at all).
    Storage storage = Storage::Stages;
    bool has_vectors = false;  ///< content: Q, K, V, X below are meaningful (computed scenes)
    bool has_qk = false;       ///< content: Q and K are (computed scenes, or a file with q and k)
    /// Content: the heads have scores (raw, scaled, masked) that the controls act on. False for
    /// post-softmax weights (a loaded file of weights, or merged words): heads then hold only
    /// weights and empty_rows, stored or streamed from `source`.
    bool has_scores = true;
    Matrix X, Xkv;   ///< inputs after embedding + positions
    Matrix Q, K, V;  ///< projections (see MultiHeadResult)
    Matrix output;   ///< nq × d_model (empty when stages were not kept)
    Index kv_heads = 0;
    /// Key/value groups the heads form, for display: a model's num_key_value_heads (its K and
    /// V above are repeated per query head, so kv_heads is the head count); 0: kv_heads.
    Index kv_groups = 0;
    /// The key/value group of head H (from 0), and the number of groups.
    Index kv_group_of(Index h) const;
    Index kv_group_count() const;
    std::vector<ScoreParams> head_scores;  ///< per head, to recompute raw rows from Q and K
    BoolMatrix visible;  ///< nq × nk allowed pairs when only the weights were kept and a mask
                         ///< applies (streamed scenes build mask blocks from `mask` instead)
    MaskSpec mask;       ///< the mask of a computed scene
    /// A streamed scene of a long loaded file: its rows of layer `layer` are read from here.
    std::shared_ptr<const RowReader> source;
    /// > 1: a coarse preview of a streamed scene from every preview_stride-th query (overview
    /// and statistics of those rows only; rows and regions are still recomputed exactly).
    Index preview_stride = 1;

    /// Number of queries (rows) and keys (columns).
    Index query_count() const { return static_cast<Index>(q_tokens.size()); }
    Index key_count() const { return static_cast<Index>(k_tokens.size()); }
    /// Rows [first, first + count) of stage `stage` of head h (0 raw, 1 scaled, 2 soft-capped,
    /// 3 masked, 4 weights, 5 output) into out: copied when stored, recomputed from Q, K and V
    /// otherwise (a streamed compute writes every stage tile by tile).
    void stage_rows(int stage, Index h, Index first, Index count, Matrix& out) const;
    /// Weights of query i in head h (stored or recomputed from Q and K, to the same numbers).
    Eigen::RowVectorXf weights_row(Index h, Index i) const;
    /// Weight of query i on key j in head h.
    float weight(Index h, Index i, Index j) const;
    /// Block overview of head h's weights over the region [firstRow, +rows) × [firstCol, +cols)
    /// at no more than max_rows × max_cols cells, every cell exact for its block (see
    /// aggregate_blocks). Streamed heads compute the region from Q and K (or reduce their stored
    /// overview when the region and factors align with it); progress may cancel.
    AggregatedGrid weights_blocks(Index h, Index firstRow, Index rows, Index firstCol, Index cols,
                                  int max_rows, int max_cols, Aggregation mode,
                                  Progress* progress = nullptr) const;
    /// What a view draws for that region: weights_blocks, except that a streamed head whose
    /// blocks would be at least as coarse as its stored overview's widens the region to the
    /// overview's grid and reduces it (exact for every block, microseconds) rather than
    /// recomputing it from Q and K. The grid then covers the region and a little around it.
    AggregatedGrid drawn_blocks(Index h, Index firstRow, Index rows, Index firstCol, Index cols,
                                int max_rows, int max_cols, Aggregation mode) const;
    /// Sub-word pieces were merged into words (SceneSpec::merge_words and some word has several
    /// pieces): tokens and weights are words × words, has_scores is false and the per-piece
    /// stages and vectors are gone; q_words/k_words say which pieces each word holds.
    bool merged_words = false;
    WordGroups q_words, k_words;  ///< the piece groups (set whenever merge_words was asked)
    std::vector<std::string> q_pieces, k_pieces;  ///< the tokens before merging (when merged)
    /// A model scene's whole run (every layer, token ids, logits), shared with the run cache.
    std::shared_ptr<const model::Run> run;
    std::vector<NextToken> next_tokens;  ///< a model scene's 10 likeliest next tokens

    /// Raw scores of query i in head h (stored or recomputed); throws for post-softmax data.
    Eigen::RowVectorXf raw_row(Index h, Index i) const;
    /// raw_row · multiplier (the scale factor, and the temperature unless the head soft-caps or
    /// adds a position bias): score_stages' first stage.
    Eigen::RowVectorXf scaled_row(Index h, Index i) const;
    /// softcap · tanh(scaled / softcap) + bias: scaled_row when the head has neither.
    Eigen::RowVectorXf softcapped_row(Index h, Index i) const;
    /// The logits the softmax sees (soft-capped ÷ τ) with −inf at the keys hidden from query i.
    Eigen::RowVectorXf masked_row(Index h, Index i) const;
    /// Output of head h for query i (α · V, stored or recomputed); throws for post-softmax data.
    Eigen::RowVectorXf output_row(Index h, Index i) const;
    /// Row i of head h as the loaded file holds it (raw scores or weights; needs source).
    Eigen::RowVectorXf source_row(Index h, Index i) const;
    /// True when key j is hidden from query i in head h (false for post-softmax data).
    bool is_masked(Index h, Index i, Index j) const;
};

/// The storage a computed scene gets: every stage while small (kStageCellLimit), the weights up
/// to kWeightCellLimit, streamed beyond; loaded data keeps its stages.
Storage storage_for(const SceneSpec& spec);

/// Bytes compute_scene(spec, …, storage) will allocate, by part, largest first (an estimate
/// made before allocating anything; tokenising the text is the only work done).
struct SceneEstimate {
    double bytes = 0;     ///< total
    std::string largest;  ///< what the largest part is, e.g. "30000 tokens × 4 heads × 2 stages"
    double largest_bytes = 0;  ///< its size
};
/// Estimates the memory of computing spec with the given storage.
SceneEstimate estimate_scene(const SceneSpec& spec, Storage storage);

/// Computes a scene with the given storage; refuses (ResourceError) before allocating when the
/// estimate exceeds memory_budget(). Streamed heads keep a block overview of overview_cells per
/// axis; query_stride > 1 makes a streamed scene a coarse preview (SceneResult::preview_stride).
/// outputs = false: Storage::Stages keeps raw scores and weights only, and each query's output
/// is derived when read (output_row, stage_rows), as for the other storages.
SceneResult compute_scene(const SceneSpec& spec, Progress* progress, Storage storage,
                          SceneResult* recycle = nullptr, int overview_cells = kOverviewCells,
                          Index query_stride = 1, bool outputs = true);

/// The earliest stage of the computation that a change of spec touches.
enum class SceneRestart {
    None,     ///< nothing the numbers depend on changed
    Softmax,  ///< temperature, scaling, mask (a loaded file's d_k): from the raw scores on
    Full,     ///< text, tokens, d_model, heads, seed, score, inputs, data, model…: everything
};

/// What changing a scene from `before` to `after` invalidates: the one rule of what to
/// recompute (recompute_scene and the application's compute service follow it). Any field it
/// does not name as Softmax-only restarts fully, and so does any change of a model run (its
/// temperature and mask act inside the run, on later layers' inputs).
SceneRestart restart_from(const SceneSpec& before, const SceneSpec& after);

/// compute_scene(spec, …) continuing from `base`, a result of `base_spec`: when restart_from
/// says Softmax (or None) and base holds this storage's projections, its tokens, inputs and
/// projections are reused (and its raw scores when stored) and only the rest runs, by the same
/// calls, so every number is bit-identical to compute_scene's. Otherwise it is compute_scene.
SceneResult recompute_scene(const SceneResult& base, const SceneSpec& base_spec,
                            const SceneSpec& spec, Progress* progress, Storage storage,
                            SceneResult* recycle = nullptr, int overview_cells = kOverviewCells,
                            Index query_stride = 1, bool outputs = true);

/// Merges r's pieces into words (merge_words on every head's weights, stats recomputed) when
/// some word has several pieces; otherwise only records the (one-piece) groups.
void merge_scene_words(SceneResult& r);

/// Computes a scene (or applies its controls to loaded data); deterministic for a given spec.
/// keep_stages = false stores only weights and outputs of computed scenes (loaded data always
/// keeps every stage): memory O(heads · n²) floats instead of four times that.
/// recycle, when given, is a result no longer needed whose per-head buffers are reused: a new
/// n² allocation would be page-faulted in afresh on every computation.
SceneResult compute_scene(const SceneSpec& spec, Progress* progress = nullptr,
                          bool keep_stages = true, SceneResult* recycle = nullptr);

}  // namespace attn
