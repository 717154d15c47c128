// AttnScope core — computing a scene (synthetic or loaded attention). GPL-3.0-or-later.
#include "attn/scene/scene.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "../util/parallel.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/util/error.hpp"
#include "attn/util/memory_budget.hpp"
#include "attn/util/random.hpp"
#include "scene_detail.hpp"

namespace attn {

std::vector<std::string> SceneSpec::query_tokens() const {
    if (model && model->tokenizer) {  // a model run's own tokens, as text
        // No further than the model's positions: a longer text is refused by the run itself.
        return model->tokenizer->display_tokens(
            model->model ? run_ids(std::size_t(model->model->info().max_positions)) : run_ids());
    }
    return tokens.empty() ? tokenize(text) : tokens;
}

namespace {

AttentionParams attention_params(const SceneSpec& spec) {
    AttentionParams p;
    p.score.kind = spec.score;
    p.score.sigma = spec.sigma;
    p.scale = spec.scale;
    p.temperature = spec.temperature;
    p.mask = spec.mask;
    return p;
}

/// The loaded q, k (and v) of one layer as the projections of a computed scene: the heads side
/// by side (Nq × H·d_k), dot-product scores, so the neuron and query–key views see real vectors.
void attach_loaded_vectors(const AttentionComponent& comp, Index layer, SceneResult& r) {
    const Index heads = comp.heads, d = comp.q[0].cols();
    const auto at = [&](const std::vector<Matrix>& m, Index h) -> const Matrix& {
        return m[static_cast<std::size_t>(layer * heads + h)];
    };
    r.Q.resize(at(comp.q, 0).rows(), heads * d);
    r.K.resize(at(comp.k, 0).rows(), heads * d);
    for (Index h = 0; h < heads; ++h) {
        r.Q.middleCols(h * d, d) = at(comp.q, h);
        r.K.middleCols(h * d, d) = at(comp.k, h);
    }
    if (!comp.v.empty()) {
        const Index dv = comp.v[0].cols();
        r.V.resize(at(comp.v, 0).rows(), heads * dv);
        for (Index h = 0; h < heads; ++h)
            r.V.middleCols(h * dv, dv) = at(comp.v, h);
    }
    r.d_k = d;
    r.kv_heads = heads;
    r.head_scores.assign(static_cast<std::size_t>(heads), ScoreParams{});
    r.has_qk = true;  // not has_vectors: there are no inputs X, and V only when the file has it
}

SceneResult compute_loaded(const SceneSpec& spec, Progress* progress) {
    const AttentionData& data = *spec.data;
    const auto nc = static_cast<Index>(data.components.size());
    if (spec.component < 0 || spec.component >= nc)
        throw ArgumentError("\"" + data.source + "\" has " + std::to_string(nc) +
                            " components; component " + std::to_string(spec.component) +
                            " does not exist.");
    const AttentionComponent& comp = data.components[static_cast<std::size_t>(spec.component)];
    if (spec.layer < 0 || spec.layer >= comp.layers)
        throw ArgumentError("\"" + data.source + "\" has " + std::to_string(comp.layers) +
                            " layers; layer " + std::to_string(spec.layer) + " does not exist.");
    if (comp.heads <= 0)
        throw ArgumentError("Component \"" + comp.name + "\" of \"" + data.source +
                            "\" has no heads.");

    SceneResult r;
    r.q_tokens = comp.q_tokens;
    r.k_tokens = comp.k_tokens;
    r.layer = spec.layer;
    r.layers = comp.layers;
    r.kv_heads = comp.heads;
    r.has_scores = comp.are_scores;
    const float dk = spec.data_dk.value_or(comp.d_k);
    r.d_k = static_cast<Index>(dk);
    // Loaded raw scores are q·k products whatever score the controls name, so they scale as dot.
    AttentionParams params = attention_params(spec);
    params.score = ScoreParams{};
    report(progress, 0.0);
    if (comp.rows) {
        detail::compute_loaded_rows(comp, data.source, params, dk, spec.layer, progress, r);
        return r;
    }
    for (Index h = 0; h < comp.heads; ++h) {
        const Matrix& m = comp.at(spec.layer, h);
        const auto nq = static_cast<Index>(comp.q_tokens.size());
        const auto nk = static_cast<Index>(comp.k_tokens.size());
        if ((nq != 0 && m.rows() != nq) || (nk != 0 && m.cols() != nk))
            throw ShapeError(
                "Head " + std::to_string(h) + " of layer " + std::to_string(spec.layer) + " in \"" +
                data.source + "\" is " + detail::shape(m.rows(), m.cols()) + " but there are " +
                std::to_string(nq) + " query and " + std::to_string(nk) + " key tokens.");
        if (comp.are_scores) {
            r.heads.push_back(attend_scores(m, dk, params));
            r.stats.push_back(head_stats(r.heads.back()));
        } else {
            if (m.rows() == 0 || m.cols() == 0)
                throw ArgumentError("Head " + std::to_string(h) + " of \"" + data.source +
                                    "\" is empty.");
            for (Index i = 0; i < m.rows(); ++i)
                for (Index j = 0; j < m.cols(); ++j)
                    if (std::isnan(m(i, j)))
                        throw NonFiniteError("Attention weights of head " + std::to_string(h) +
                                             " in \"" + data.source + "\" are NaN at row " +
                                             std::to_string(i) + ", column " + std::to_string(j) +
                                             ".");
            // Post-softmax weights have no score stages: raw/scaled/masked/output stay empty.
            HeadResult head;
            head.weights = m;
            head.empty_rows.resize(static_cast<std::size_t>(m.rows()));
            for (Index i = 0; i < m.rows(); ++i)
                head.empty_rows[static_cast<std::size_t>(i)] = m.row(i).sum() > 0.f ? 0 : 1;
            r.stats.push_back(weights_stats(m));
            r.heads.push_back(std::move(head));
        }
        report(progress, static_cast<double>(h + 1) / static_cast<double>(comp.heads));
    }
    if (!comp.q.empty()) attach_loaded_vectors(comp, spec.layer, r);
    return r;
}

}  // namespace

Matrix seeded_embeddings(const std::vector<std::string>& tokens, const SceneSpec& spec) {
    return hashed_embeddings(tokens, spec.d_model, spec.seed) +
           positional_encoding(spec.positional, static_cast<Index>(tokens.size()), spec.d_model,
                               spec.seed);
}

MultiHeadWeights seeded_weights(const SceneSpec& spec) {
    MultiHeadConfig config;
    config.d_model = spec.d_model;
    config.heads = spec.heads;
    config.kv_heads = spec.kv_heads;
    return MultiHeadWeights::xavier(config, spec.score, derive_seed(spec.seed, 7), spec.sigma);
}

namespace {

std::string count_text(double v) {
    return std::to_string(static_cast<long long>(v));
}

/// Query and key counts of a computed spec (tokenising only).
std::pair<double, double> token_counts(const SceneSpec& spec) {
    const auto nq = static_cast<double>(spec.query_tokens().size());
    const double nk =
        spec.cross_text.empty() ? nq : static_cast<double>(tokenize(spec.cross_text).size());
    return {nq, nk};
}

}  // namespace

Storage storage_for(const SceneSpec& spec) {
    if (!spec.is_synthetic())
        return Storage::Stages;  // loaded data: the stages are the file's own numbers
    const auto [nq, nk] = token_counts(spec);
    const double cells = nq * nk * static_cast<double>(spec.heads);
    if (cells <= kStageCellLimit) return Storage::Stages;
    return cells <= kWeightCellLimit ? Storage::Weights : Storage::Streamed;
}

SceneEstimate estimate_scene(const SceneSpec& spec, Storage storage) {
    SceneEstimate e;
    const auto part = [&e](double bytes, std::string what) {
        e.bytes += bytes;
        if (bytes > e.largest_bytes) e.largest_bytes = bytes, e.largest = std::move(what);
    };
    constexpr double f = sizeof(float);
    if (spec.is_model() && spec.model->model && spec.model->tokenizer) {
        // A model run keeps every layer's stages (model::scene_run checks them before running).
        // Tokenized no further than the model's positions: more is refused by the run itself.
        const model::ModelInfo& info = spec.model->model->info();
        const auto n = Index(spec.run_ids(std::size_t(info.max_positions)).size());
        part(model::run_bytes(info, n),
             count_text(double(n)) + " tokens × every layer's heads × 4 stages of a model run");
        return e;
    }
    if (spec.is_loaded()) {
        // Loaded data is in memory already; applying the controls adds the shown layer's stages.
        for (const AttentionComponent& c : spec.data->components) {
            if (c.rows) {
                // Read from its file row by row: only the overview and row statistics are held.
                const double nq = double(c.q_tokens.size()), nk = double(c.k_tokens.size());
                const double ov =
                    std::min(double(kOverviewCells), nq) * std::min(double(kOverviewCells), nk);
                part(double(c.heads) * (ov * 16 + nq * (sizeof(RowStats) + 2 * f)),
                     count_text(double(c.heads)) + " heads × overview and row statistics");
                continue;
            }
            const double cells = double(c.q_tokens.size()) * double(c.k_tokens.size());
            const double stages = c.are_scores ? 2 : 1;  // raw and weights
            part(cells * double(c.heads) * stages * f,
                 count_text(double(c.q_tokens.size())) + " × " +
                     count_text(double(c.k_tokens.size())) + " tokens × " +
                     count_text(double(c.heads)) + " heads × " + count_text(stages) + " stages");
        }
        return e;
    }
    const auto [nq, nk] = token_counts(spec);
    const double d = double(std::max<Index>(spec.d_model, 0));
    const double h = double(std::max<Index>(spec.heads, 1));
    const double dk = std::max(1.0, std::floor(d / h));
    const std::string tokens =
        nq == nk ? count_text(nq) + " tokens" : count_text(nq) + " × " + count_text(nk) + " tokens";
    part(4 * d * d * f,
         "d_model " + count_text(d) + ": W_Q, W_K, W_V, W_O of 4 × " + count_text(d) + "² floats");
    if (spec.score == ScoreKind::General || spec.score == ScoreKind::Additive)
        part(h * 2 * dk * dk * f,
             count_text(h) + " heads × score matrices of " + count_text(dk) + "² floats");
    part((6 * nq + 3 * nk) * d * f, tokens + " × d_model " + count_text(d) + " × 9 vectors");
    switch (storage) {
        case Storage::Stages:
            // Raw scores and weights; the scaled and masked scores are derived from raw.
            part(h * nq * nk * 2 * f + h * nq * dk * f,
                 tokens + " × " + count_text(h) + " heads × 2 stages");
            break;
        case Storage::Weights:
            part(h * nq * nk * f + nq * nk, tokens + " × " + count_text(h) + " heads × weights");
            break;
        case Storage::Streamed: {
            const double ov =
                std::min(double(kOverviewCells), nq) * std::min(double(kOverviewCells), nk);
            part(h * (ov * 16 + nq * (sizeof(RowStats) + 2 * f)),
                 count_text(h) + " heads × overview and row statistics");
            // Per thread: a tile's scores (floats) and mask (bytes), one row's exponentials and
            // the head's keys packed for the dot kernel (streamed_pass.cpp).
            const double threads = std::min(double(detail::thread_count()), h);
            part(threads * nk * (64 * (f + 1) + f + dk * f),
                 "tiles of 64 queries × " + count_text(nk) + " keys");
            break;
        }
    }
    return e;
}

SceneResult compute_scene(const SceneSpec& spec, Progress* progress, bool keep_stages,
                          SceneResult* recycle) {
    return compute_scene(spec, progress, keep_stages ? Storage::Stages : Storage::Weights, recycle);
}

namespace detail {

void require_scene_memory(const SceneSpec& spec, Storage storage) {
    const SceneEstimate e = estimate_scene(spec, storage);
    require_memory(e.bytes, e.largest + (e.bytes > 1.05 * e.largest_bytes ? " and the rest" : ""),
                   "use fewer tokens or heads, a smaller d_model, or a larger memory budget");
}

SceneResult compute_pieces(const SceneSpec& spec, Progress* progress, Storage storage,
                           SceneResult* recycle, int overview_cells, Index query_stride,
                           const SceneResult* base, bool outputs) {
    // A restart from base holds what base held (recompute_scene checks).
    if (!base) require_scene_memory(spec, storage);
    switch (spec.source()) {
        case SourceKind::ModelRun:
            return model::model_scene(spec, progress);
        case SourceKind::Loaded:
            return compute_loaded(spec, progress);
        case SourceKind::Synthetic:
            break;
    }
    const bool keep_stages = storage == Storage::Stages;

    MultiHeadConfig config{spec.d_model, spec.heads, spec.kv_heads};
    config.validate();
    SceneResult r;
    r.q_tokens = base ? base->q_tokens : spec.query_tokens();
    if (r.q_tokens.empty())
        throw ArgumentError("The scene has no tokens: the text is empty or only whitespace.");
    const bool cross = !spec.cross_text.empty();
    r.k_tokens = cross ? tokenize(spec.cross_text) : r.q_tokens;
    if (r.k_tokens.empty()) throw ArgumentError("The cross-attention text has no tokens.");
    const auto nq = static_cast<Index>(r.q_tokens.size());

    if (base) {
        // The inputs did not change (restart_from): neither did the embeddings. Copied into a
        // recycled result's buffers when it has them (no fresh pages to fault in).
        if (recycle) r.X = std::move(recycle->X), r.Xkv = std::move(recycle->Xkv);
        r.X = base->X;
    } else if (spec.embeddings) {
        const Matrix& E = *spec.embeddings;
        if (E.rows() != nq || E.cols() != spec.d_model)
            throw ShapeError("Explicit embeddings must be tokens x d_model = " +
                             detail::shape(nq, spec.d_model) + ", got " +
                             detail::shape(E.rows(), E.cols()) + ".");
        detail::require_finite(E, "Embeddings");
        r.X = E + positional_encoding(spec.positional, nq, spec.d_model, spec.seed);
    } else {
        r.X = seeded_embeddings(r.q_tokens, spec);
    }
    r.Xkv = base ? base->Xkv : cross ? seeded_embeddings(r.k_tokens, spec) : r.X;

    // A reference to the spec's own weights (no copy), or the seeded ones.
    std::optional<MultiHeadWeights> seeded;
    if (!spec.weights) seeded = seeded_weights(spec);
    const MultiHeadWeights& weights = spec.weights ? *spec.weights : *seeded;
    AttentionParams params = attention_params(spec);
    params.keep_stages = keep_stages;
    params.stage_outputs = outputs;
    params.overview_cells = storage == Storage::Streamed ? std::max(1, overview_cells) : 0;
    params.query_stride = storage == Storage::Streamed ? std::max<Index>(1, query_stride) : 1;
    params.stop = progress;
    MultiHeadResult m;
    if (recycle) m.heads = std::move(recycle->heads);
    try {
        if (base) {
            // Same inputs and projections: only the heads from their scores (their kept raw
            // scores when every head of base has them) onwards.
            if (recycle) m.Q = std::move(recycle->Q), m.K = std::move(recycle->K);
            if (recycle) m.V = std::move(recycle->V);
            m.Q = base->Q;
            m.K = base->K;
            m.V = base->V;
            bool from_raw = keep_stages && base->heads.size() == std::size_t(config.heads);
            for (const HeadResult& h : base->heads)
                from_raw = from_raw && h.has_stages();
            m.heads.resize(static_cast<std::size_t>(config.heads));
            // The raw scores are copied by each head's task, in parallel.
            heads_into(weights, config, params, m, progress, true,
                       from_raw ? &base->heads : nullptr);
        } else {
            multi_head_into(r.X, r.Xkv, weights, config, params, m, progress, true);
        }
    } catch (...) {
        if (recycle) recycle->heads = std::move(m.heads);  // e.g. cancelled: keep the buffers
        throw;
    }
    r.heads = std::move(m.heads);
    r.stats = std::move(m.stats);
    r.head_scores = weights.head_scores;
    if (r.head_scores.empty())
        r.head_scores.assign(static_cast<std::size_t>(spec.heads), params.score);
    for (ScoreParams& p : r.head_scores)
        p.kind = spec.score;
    r.mask = spec.mask;
    r.storage = storage;
    r.preview_stride = params.query_stride;
    if (storage == Storage::Weights && spec.mask.kind != MaskKind::None)
        r.visible = build_mask(spec.mask, nq, static_cast<Index>(r.k_tokens.size()));
    r.Q = std::move(m.Q);
    r.K = std::move(m.K);
    r.V = std::move(m.V);
    r.output = std::move(m.output);
    r.d_k = m.d_k;
    r.kv_heads = config.kv();
    r.has_vectors = true;
    r.has_qk = true;
    r.layer = 0;
    r.layers = 1;
    return r;
}

}  // namespace detail

SceneResult compute_scene(const SceneSpec& spec, Progress* progress, Storage storage,
                          SceneResult* recycle, int overview_cells, Index query_stride,
                          bool outputs) {
    SceneResult r = detail::compute_pieces(spec, progress, storage, recycle, overview_cells,
                                           query_stride, nullptr, outputs);
    if (spec.merge_words) merge_scene_words(r);
    return r;
}

}  // namespace attn
