// AttnScope core — a model run as a scene. GPL-3.0-or-later.
#include "attn/scene/model_scene.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attn/attention/stats.hpp"
#include "attn/models/vocabulary.hpp"
#include "attn/util/error.hpp"
#include "attn/util/memory_budget.hpp"

#include "../util/utf8.hpp"
#include "scene_detail.hpp"

namespace attn::model {
namespace {

bool in_scope(const std::vector<int>& layers, Index l) {
    return layers.empty() || std::find(layers.begin(), layers.end(), int(l)) != layers.end();
}

}  // namespace

bool controls_apply_in(const SceneSpec& spec, Index layer) {
    return in_scope(spec.model_layers, layer);
}

RunControls run_controls(const SceneSpec& spec) {
    RunControls c;
    c.scale = spec.scale;
    c.temperature = spec.temperature;
    c.mask = spec.mask;
    c.layers = spec.model_layers;
    c.rotary = spec.model_rotary;
    c.softcap = spec.model_softcap;
    c.interventions = spec.interventions;
    return c;
}

std::vector<std::int32_t> checked_run_ids(const SceneSpec& spec) {
    if (!spec.model || !spec.model->model || !spec.model->tokenizer)
        throw ArgumentError("The scene has no model to run.");
    const ModelInfo& info = spec.model->model->info();
    // Tokenized only as far as the model's positions reach: a longer text is refused before
    // all of it is tokenized.
    bool more = false;
    std::vector<std::int32_t> ids = spec.run_ids(std::size_t(info.max_positions), &more);
    if (more)
        throw ArgumentError("The text has more than " + std::to_string(info.max_positions) +
                            " tokens, the model's " + std::to_string(info.max_positions) +
                            " positions; use a shorter text.");
    if (ids.empty()) throw ArgumentError("The scene has no tokens: the text is empty.");
    return ids;
}

std::shared_ptr<const Run> compute_run(const SceneSpec& spec, const std::vector<std::int32_t>& ids,
                                       Progress* progress, const Run* prefix) {
    if (!spec.model || !spec.model->model || !spec.model->tokenizer)
        throw ArgumentError("The scene has no model to run.");
    const ModelFolder& folder = *spec.model;
    const ModelInfo& info = folder.model->info();
    require_memory(run_bytes(info, Index(ids.size())),
                   std::to_string(ids.size()) + " tokens × " +
                       std::to_string(info.layers * info.heads) +
                       " heads × 4 stages of a model run",
                   "use a shorter text");
    return std::make_shared<const Run>(
        model::run(*folder.model, ids, run_controls(spec), nullptr, progress, prefix,
                   fill_mask_position(info, *folder.tokenizer, ids)));
}

std::shared_ptr<const Run> scene_run(const SceneSpec& spec, Progress* progress, const Run* prefix) {
    return compute_run(spec, checked_run_ids(spec), progress, prefix);
}

std::vector<NextToken> top_next_tokens(const Run& run, const ModelFolder& folder, int k) {
    const Tokenizer& tokenizer = *folder.tokenizer;
    const Vector logits = without_padding(folder.model->info(), run.logits);
    const Index v = logits.size();
    if (v == 0 || k <= 0) return {};
    const double top = logits.maxCoeff();
    double sum = 0;
    for (Index i = 0; i < v; ++i)
        sum += std::exp(double(logits[i]) - top);
    std::vector<std::int32_t> order(static_cast<std::size_t>(v));
    std::iota(order.begin(), order.end(), 0);
    const auto count =
        static_cast<std::ptrdiff_t>(std::min({Index(k), v, text_vocab(folder.model->info())}));
    std::partial_sort(order.begin(), order.begin() + count, order.end(),
                      [&](std::int32_t a, std::int32_t b) {
                          return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
                      });
    std::vector<NextToken> out;
    for (std::ptrdiff_t i = 0; i < count; ++i) {
        NextToken t;
        t.id = order[static_cast<std::size_t>(i)];
        t.text = tokenizer.token_text(t.id);
        t.probability = float(std::exp(double(logits[t.id]) - top) / sum);
        out.push_back(std::move(t));
    }
    return out;
}

SceneResult model_scene(const SceneSpec& spec, Progress* progress) {
    return model_scene(spec, scene_run(spec, progress));
}

SceneResult model_scene(const SceneSpec& spec, std::shared_ptr<const Run> run) {
    if (!spec.model || !spec.model->model || !spec.model->tokenizer || !run)
        throw ArgumentError("The scene has no model to run.");
    const ModelFolder& folder = *spec.model;
    const ModelInfo& info = folder.model->info();
    if (spec.layer < 0 || spec.layer >= info.layers)
        throw ArgumentError("The model has " + std::to_string(info.layers) + " layers; layer " +
                            std::to_string(spec.layer) + " does not exist.");
    const LayerAttention& layer = run->layers[std::size_t(spec.layer)];
    SceneResult r;
    r.q_tokens = folder.tokenizer->display_tokens(run->ids);
    r.k_tokens = r.q_tokens;
    r.layer = spec.layer;
    r.layers = info.layers;
    r.heads = layer.heads;
    for (const HeadResult& h : r.heads)
        r.stats.push_back(head_stats(h));
    const Index n = Index(run->ids.size()), heads = info.heads, dk = info.head_dim;
    r.Q.resize(n, heads * dk);
    r.K.resize(n, heads * dk);
    r.V.resize(n, heads * dk);
    for (Index h = 0; h < heads; ++h) {
        r.Q.middleCols(h * dk, dk) = layer.q[std::size_t(h)];
        r.K.middleCols(h * dk, dk) = layer.k[std::size_t(h)];
        r.V.middleCols(h * dk, dk) = layer.v[std::size_t(h)];
    }
    r.d_k = dk;
    r.kv_heads = heads;
    r.kv_groups = info.kv_heads;  // grouped-query attention: heads sharing one K and V
    r.has_qk = true;  // not has_vectors: the layer's inputs are the run's residual stream
    r.head_scores.assign(std::size_t(heads), ScoreParams{});
    // The mask this layer ran with: the scene's inside the scope, the model's own outside it.
    r.mask = layer_controls(*folder.model, run->controls, int(spec.layer)).params.mask;
    r.next_tokens = top_next_tokens(*run, folder);
    r.run = std::move(run);
    return r;
}

SceneResult run_scene(const SceneSpec& spec, std::shared_ptr<const Run> run, Storage storage) {
    // What compute_scene checks and does around a model scene, with the run given.
    detail::require_scene_memory(spec, storage);
    SceneResult r = model_scene(spec, std::move(run));
    if (spec.merge_words) merge_scene_words(r);
    return r;
}

}  // namespace attn::model

namespace attn {

// A SceneSpec's member, here with the rest of what a model scene runs.
std::vector<std::int32_t> SceneSpec::run_ids(std::size_t limit, bool* more) const {
    if (more) *more = false;
    if (!model || !model->tokenizer) return {};
    const model::Tokenizer& tokenizer = *model->tokenizer;
    if (!model_ids.empty() && tokenizer.decode(model_ids) == text) {
        if (more) *more = model_ids.size() > limit;
        return {model_ids.begin(),
                model_ids.begin() + std::ptrdiff_t(std::min(limit, model_ids.size()))};
    }
    return tokenizer.encode(text, limit, more);
}

}  // namespace attn
