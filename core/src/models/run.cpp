// AttnScope core — the generic forward pass shared by every model family. GPL-3.0-or-later.
#include "attn/models/run.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/simd/softmax_kernel.hpp"
#include "attn/util/error.hpp"
#include "interventions_hooks.hpp"
#include "run_from_rows.hpp"

namespace attn::model {

MaskSpec own_mask(const ModelInfo& info) {
    MaskSpec m;
    m.kind = info.causal ? MaskKind::Causal : MaskKind::None;
    return m;
}

AttentionParams Model::layer_params(int) const {
    AttentionParams p;
    p.mask = own_mask(info());
    return p;
}

LayerControls layer_controls(const Model& model, const RunControls& controls, int l) {
    LayerControls lc;
    lc.params = model.layer_params(l);
    const bool inside =
        controls.layers.empty() ||
        std::find(controls.layers.begin(), controls.layers.end(), l) != controls.layers.end();
    if (inside) {
        lc.params.scale = controls.scale;
        lc.params.temperature = controls.temperature;
        const bool own_window = lc.params.mask.kind == MaskKind::CausalWindow && controls.mask &&
                                controls.mask->kind == MaskKind::Causal;
        if (controls.mask && !own_window) lc.params.mask = *controls.mask;
        lc.rotary = controls.rotary;
        if (!controls.softcap) lc.params.softcap = 0.f;  // "soft-capping off"
    }
    return lc;
}

HeadResult attend_head(const Matrix& q, const Matrix& k, const Matrix& v,
                       const AttentionParams& params, int layer, int head, Index first,
                       Hooks& hooks, Matrix& z) {
    HeadResult r;
    try {
        if (params.bias) {  // a per-head position bias: this head's
            AttentionParams own = params;
            own.bias_head = head;
            r = attend(q, k, v, own);
        } else {
            r = attend(q, k, v, params);
        }
    } catch (const NonFiniteError& e) {
        throw NonFiniteError("head " + std::to_string(head) + ": " + e.what());
    }
    // A hook that changes the weights (a knockout) changes what the head outputs: the output is
    // recomputed from the changed weights, so the stages shown and the run agree.
    const Matrix before = r.weights;
    hooks.pattern(layer, head, r.weights);
    if (r.weights != before) r.output = r.weights * v;
    z = r.output.bottomRows(r.output.rows() - first);
    hooks.z(layer, head, first, z);
    // The stages shown are what the run used: an ablated or patched head shows its new output.
    if (r.output.rows() == z.rows() + first) r.output.bottomRows(z.rows()) = z;
    return r;
}

Matrix Model::logits_rows(const Matrix& x) const {
    Matrix out(x.rows(), info().vocab);
    for (Index i = 0; i < x.rows(); ++i)
        out.row(i) = logits(x.row(i)).transpose();
    return out;
}

namespace {

void check_ids(const ModelInfo& info, const std::vector<std::int32_t>& ids) {
    if (ids.empty()) throw ArgumentError(info.display + " needs at least one token");
    if (info.max_positions > 0 && Index(ids.size()) > info.max_positions)
        throw ArgumentError(std::to_string(ids.size()) + " tokens are more than the model's " +
                            std::to_string(info.max_positions) + " positions");
    for (const std::int32_t id : ids)
        if (id < 0 || id >= info.vocab)
            throw ArgumentError("token id " + std::to_string(id) +
                                " is outside the vocabulary of " + std::to_string(info.vocab));
}

void check_controls(const ModelInfo& info, const RunControls& controls) {
    for (const int l : controls.layers)
        if (l < 0 || l >= info.layers)
            throw ArgumentError("layer " + std::to_string(l) + " does not exist (the model has " +
                                std::to_string(info.layers) + ")");
    if (!(controls.temperature > 0.f) || !std::isfinite(controls.temperature))
        throw ArgumentError("temperature must be a positive number");
    check_interventions(info, controls.interventions);
}

/// Whether PREFIX's rows [0, LENGTH) may stand as the past of a run of N positions under
/// PREFIX's controls: a causal model, its own mask, no mean ablation, a whole prefix run.
bool prefix_lends(const Model& model, const Run& prefix, Index length, Index n) {
    const ModelInfo& info = model.info();
    const RunControls& controls = prefix.controls;
    if (!info.causal) return false;
    if (controls.mask && !(*controls.mask == own_mask(info))) return false;
    // Mean ablation mixes every position into each: a longer sequence changes earlier rows.
    if (!controls.interventions.ablated.empty() &&
        controls.interventions.ablation == AblationMode::Mean)
        return false;
    if (prefix.inputs.size() != std::size_t(info.layers) + 1 ||
        prefix.layers.size() != std::size_t(info.layers))
        return false;
    return model.prefix_holds(length, n);
}

/// Positions of PREFIX that a run of IDS may reuse: the shared start of the ids (never the last
/// position), when the model is causal and the prefix ran with the same controls.
Index reusable(const Model& model, const std::vector<std::int32_t>& ids,
               const RunControls& controls, const Run* prefix, bool extra_hooks) {
    if (!prefix || extra_hooks || !(prefix->controls == controls)) return 0;
    const Index n = Index(ids.size());
    if (!prefix_lends(model, *prefix, Index(prefix->ids.size()), n)) return 0;
    Index p = 0;
    while (p < n - 1 && p < Index(prefix->ids.size()) &&
           prefix->ids[std::size_t(p)] == ids[std::size_t(p)])
        ++p;
    return p;
}

/// "FOLDER: layer L (tensors PREFIX L.*)": where a layer's error happened.
std::string layer_place(const ModelInfo& info, int l) {
    std::string s = info.folder.empty() ? "" : info.folder + ": ";
    s += "layer " + std::to_string(l);
    if (!info.layer_prefix.empty())
        s += " (tensors " + info.layer_prefix + std::to_string(l) + ".*)";
    return s;
}

/// What to do about a NaN or infinity that finite weights produced.
std::string overflow_advice(const ModelInfo& info) {
    return " The weights" + (info.folder.empty() ? std::string() : " in " + info.folder) +
           " give values float32 cannot hold (infinite or NaN) here: check the weight files (a "
           "corrupted download or a wrong conversion).";
}

/// Runs layer L of MODEL on X (rows from position P); a NaN or infinity met inside it (attend's
/// check of Q, K and V, or the layer's output checked here) is thrown again naming the folder,
/// the layer and what to do: the message of attend alone names neither.
void located_layer(const Model& model, int l, Matrix& x, Index p, const LayerAttention* past,
                   const LayerControls& controls, LayerAttention& out, Hooks& hooks) {
    const ModelInfo& info = model.info();
    const std::string advice = overflow_advice(info);
    try {
        model.layer(l, x, p, past, controls, out, hooks);
    } catch (const NonFiniteError& e) {
        throw NonFiniteError(layer_place(info, l) + ", " + e.what() + advice);
    }
    if (simd::all_finite(x.data(), x.size())) return;
    for (Index i = 0; i < x.rows(); ++i)
        for (Index j = 0; j < x.cols(); ++j)
            if (!std::isfinite(x(i, j)))
                throw NonFiniteError(layer_place(info, l) + ": its output (the residual stream) " +
                                     "has a non-finite value (" + std::to_string(x(i, j)) +
                                     ") at position " + std::to_string(p + i) + ", column " +
                                     std::to_string(j) + "." + advice);
}

/// Layers [from, L) on x (rows [p, n)), then the logits: the common tail of run and run_from.
void run_layers(const Model& model, Run& run, Matrix x, int from, Index p, const Run* prefix,
                Hooks& hooks, Progress* progress, Index logits_at, bool logits = true) {
    const ModelInfo& info = model.info();
    const Index n = Index(run.ids.size());
    for (int l = from; l < info.layers; ++l) {
        hooks.resid_pre(l, p, x);
        Matrix full(n, x.cols());
        if (p > 0) full.topRows(p) = prefix->inputs[std::size_t(l)].topRows(p);
        full.bottomRows(n - p) = x;
        run.inputs.push_back(std::move(full));
        LayerAttention layer;
        const LayerAttention* past = p > 0 ? &prefix->layers[std::size_t(l)] : nullptr;
        located_layer(model, l, x, p, past, layer_controls(model, run.controls, l), layer, hooks);
        // The reused rows' shown outputs are the prefix's: the z hook (ablation) saw only the
        // new rows, so the outputs the family recomputed for earlier queries would show the
        // head unablated where a full run shows it ablated.
        for (std::size_t h = 0; past && h < std::min(layer.heads.size(), past->heads.size()); ++h) {
            Matrix& out = layer.heads[h].output;
            const Matrix& old = past->heads[h].output;
            if (out.rows() >= p && old.rows() >= p && out.cols() == old.cols())
                out.topRows(p) = old.topRows(p);
        }
        run.layers.push_back(std::move(layer));
        report(progress, double(l + 1 - from) / double(info.layers + 1 - from));
    }
    hooks.resid_final(p, x);
    Matrix full(n, x.cols());
    if (p > 0) full.topRows(p) = prefix->inputs.back().topRows(p);
    full.bottomRows(n - p) = x;
    run.inputs.push_back(std::move(full));
    run.logits_position = logits_at;
    if (!logits) return;
    run.logits = model.logits(run.inputs.back().row(logits_at));
    if (!simd::all_finite(run.logits.data(), run.logits.size()))
        throw NonFiniteError((info.folder.empty() ? std::string() : info.folder + ": ") +
                             "the logits at position " + std::to_string(logits_at) +
                             " (the final norm and the output head) have a non-finite value." +
                             overflow_advice(info));
}

}  // namespace

void check_run(const Model& model, const std::vector<std::int32_t>& ids,
               const RunControls& controls) {
    check_ids(model.info(), ids);
    check_controls(model.info(), controls);
}

Run run(const Model& model, const std::vector<std::int32_t>& ids, const RunControls& controls,
        Hooks* hooks, Progress* progress, const Run* prefix, std::optional<Index> logits_at) {
    const ModelInfo& info = model.info();
    check_ids(info, ids);
    check_controls(info, controls);
    const Index n = Index(ids.size());
    const Index at = logits_at.value_or(n - 1);
    if (at < 0 || at >= n)
        throw ArgumentError("position " + std::to_string(at) + " is outside the " +
                            std::to_string(n) + " tokens");
    const Index p = reusable(model, ids, controls, prefix, hooks != nullptr);
    InterventionHooks interventions(controls.interventions);
    HookChain chain;
    if (!controls.interventions.empty()) chain.add(&interventions);
    chain.add(hooks);
    Run run;
    run.ids = ids;
    run.reused = p;
    run.controls = controls;
    report(progress, 0.0);
    run_layers(model, run, model.embed(ids, p), 0, p, prefix, chain, progress, at);
    return run;
}

namespace {

Run run_from_first(const Model& model, const Run& base, int from, Hooks* hooks, Progress* progress,
                   bool logits, Index first) {
    const ModelInfo& info = model.info();
    if (from < 0 || from > info.layers || base.inputs.size() != std::size_t(info.layers) + 1)
        throw ArgumentError("layer " + std::to_string(from) + " is not a layer of this run");
    // BASE's rows before FIRST stand as the past of the rows computed again, as in run's prefix
    // reuse (and under the same conditions); never the logits' row.
    const Index n = Index(base.ids.size());
    first = std::clamp<Index>(first, 0, base.logits_position);
    if (first > 0 && !prefix_lends(model, base, first, n)) first = 0;
    InterventionHooks interventions(base.controls.interventions);
    HookChain chain;
    if (!base.controls.interventions.empty()) chain.add(&interventions);
    chain.add(hooks);
    Run run;
    run.ids = base.ids;
    run.controls = base.controls;
    run.layers.assign(base.layers.begin(), base.layers.begin() + from);
    run.inputs.assign(base.inputs.begin(), base.inputs.begin() + from);
    run.reused = first;
    report(progress, 0.0);
    run_layers(model, run, base.inputs[std::size_t(from)].bottomRows(n - first), from, first,
               first > 0 ? &base : nullptr, chain, progress, base.logits_position, logits);
    return run;
}

}  // namespace

Run run_from(const Model& model, const Run& base, int from, Hooks* hooks, Progress* progress,
             bool logits) {
    return run_from_first(model, base, from, hooks, progress, logits, 0);
}

Run run_from_rows(const Model& model, const Run& base, int from, Hooks* hooks, Index first) {
    return run_from_first(model, base, from, hooks, nullptr, false, first);
}

}  // namespace attn::model
