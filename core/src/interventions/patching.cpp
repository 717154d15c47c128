// AttnScope core — activation patching. GPL-3.0-or-later.
#include "attn/interventions/patching.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "../models/run_from_rows.hpp"
#include "../util/parallel.hpp"
#include "attn/interventions/attribution.hpp"
#include "attn/interventions/capture.hpp"
#include "attn/util/error.hpp"
#include "patch_span.hpp"

namespace attn::interv {

double logit_diff(const model::Model& model, const model::Run& run, std::int32_t answer,
                  std::int32_t wrong) {
    const Matrix y = run.inputs.back().row(run.logits_position);
    return token_logit(model, y, answer) - token_logit(model, y, wrong);
}

bool unstable_span(double clean_diff, double corrupt_diff, double logit_scale) {
    const double span = std::abs(clean_diff - corrupt_diff);
    return !std::isfinite(span) || span == 0.0 || span < kUnstableSpanFraction * logit_scale;
}

void HeadPatch::z(int layer, int head, Index first, Matrix& z) {
    if (layer == l_ && head == h_) z = src_.bottomRows(src_.rows() - first);
}

void ResidPatch::put(Index first, Matrix& x) const {
    if (positions_.empty()) {
        x = src_.bottomRows(src_.rows() - first);
        return;
    }
    for (const Index p : positions_)
        if (p >= first && p - first < x.rows()) x.row(p - first) = src_.row(p);
}

void ResidPatch::resid_pre(int layer, Index first, Matrix& x) {
    if (layer == l_) put(first, x);
}

void ResidPatch::resid_final(Index first, Matrix& x) {
    if (l_ == layers_) put(first, x);
}

namespace {

/// Whether the H patched runs of one layer may run stacked as one sequence (patch_layer below):
/// the model's layers read positions only through their input (no rotary positions, no
/// position bias, no window) and the controls are the defaults (the stacked runs replace the
/// mask).
bool stackable(const model::Model& model, const model::RunControls& controls) {
    const model::ModelInfo& info = model.info();
    if (info.rotary || info.sliding_window > 0 || !(controls == model::RunControls{})) return false;
    for (int l = 0; l < info.layers; ++l) {
        const AttentionParams p = model.layer_params(l);
        if (p.bias || !(p.mask == model::own_mask(info))) return false;
    }
    return true;
}

/// In layer L, block h of head h's z (rows [h·M, (h + 1)·M) of the stacked rows) is the clean
/// run's, rows [n − M, n).
class StackedHeadPatch : public model::Hooks {
  public:
    StackedHeadPatch(int layer, Index rows, const CaptureHooks& clean)
        : l_(layer), m_(rows), clean_(clean) {}
    void z(int layer, int head, Index, Matrix& z) override {
        if (layer == l_) z.middleRows(head * m_, m_) = clean_.z_of(layer, head).bottomRows(m_);
    }

  private:
    int l_;
    Index m_;
    const CaptureHooks& clean_;
};

/// The H patched runs of layer L as one sequence through layers L … end: the first AGREE
/// positions (where every patched run is the corrupted one) once, as the corrupted run's past,
/// then each run's own M = n − AGREE rows as a block that sees those and its own earlier rows
/// (a custom mask: causal within the block). Each weight matrix is read once for the H runs
/// instead of once each. Returns the rows leaving the last layer, block h for head h.
Matrix patch_layer(const model::Model& model, const model::Run& corrupt, const CaptureHooks& clean,
                   int l, Index agree) {
    const model::ModelInfo& info = model.info();
    const int H = info.heads;
    const Index n = Index(corrupt.ids.size()), m = n - agree, total = agree + H * m;
    MaskSpec mask;
    mask.kind = MaskKind::Custom;
    mask.custom = BoolMatrix::Zero(total, total);
    for (Index i = 0; i < total; ++i)
        for (Index j = 0; j < total; ++j) {
            const bool own = j < agree || (i >= agree && (i - agree) / m == (j - agree) / m);
            const Index qi = i < agree ? i : agree + (i - agree) % m;
            const Index kj = j < agree ? j : agree + (j - agree) % m;
            mask.custom(i, j) = own && (!info.causal || kj <= qi);
        }
    Matrix x(H * m, corrupt.inputs[std::size_t(l)].cols());
    for (int h = 0; h < H; ++h)
        x.middleRows(h * m, m) = corrupt.inputs[std::size_t(l)].bottomRows(m);
    StackedHeadPatch patched(l, m, clean);
    model::Hooks none;
    for (int layer = l; layer < info.layers; ++layer) {
        model::LayerControls lc = model::layer_controls(model, corrupt.controls, layer);
        lc.params.mask = mask;
        model::LayerAttention out;
        model.layer(layer, x, agree, agree > 0 ? &corrupt.layers[std::size_t(layer)] : nullptr, lc,
                    out, layer == l ? static_cast<model::Hooks&>(patched) : none);
    }
    return x;
}

}  // namespace

PatchResult patch(const model::Model& model, const PatchSpec& spec, Progress* progress) {
    const model::ModelInfo& info = model.info();
    if (spec.clean.size() != spec.corrupt.size())
        throw ArgumentError("the clean prompt has " + std::to_string(spec.clean.size()) +
                            " tokens and the corrupted one " + std::to_string(spec.corrupt.size()) +
                            ": patching needs prompts of equal token length");
    for (const std::int32_t t : {spec.answer, spec.wrong})
        if (t < 0 || t >= info.vocab)
            throw ArgumentError("answer token " + std::to_string(t) +
                                " is outside the vocabulary of " + std::to_string(info.vocab));
    const int L = info.layers, H = info.heads;
    const Index n = Index(spec.clean.size());
    const double runs =
        2.0 + (spec.heads ? double(L) * H : 0.0) + (spec.resid ? double(L + 1) * double(n) : 0.0);
    double done = 0;
    const auto step = [&] { report(progress, ++done / runs); };  // the clean and corrupted runs
    report(progress, 0.0);
    CaptureHooks capture(info);
    const model::Run clean = model::run(model, spec.clean, spec.controls, &capture);
    step();
    const model::Run corrupt = model::run(model, spec.corrupt, spec.controls);
    step();
    PatchResult r;
    r.clean_diff = logit_diff(model, clean, spec.answer, spec.wrong);
    r.corrupt_diff = logit_diff(model, corrupt, spec.answer, spec.wrong);
    r.logit_scale = logit_spread(clean.logits);
    const double span = restorable_span(r.clean_diff, r.corrupt_diff);
    const auto restored = [&](const model::Run& patched) {
        return float((logit_diff(model, patched, spec.answer, spec.wrong) - r.corrupt_diff) / span);
    };
    // Every patched run is independent of the others: they share the cores (each run's products
    // on one thread), progress and cancellation reported from the calling thread.
    if (spec.heads) r.heads.resize(L, H);
    if (spec.resid) r.resid.resize(L + 1, n);
    // The two prompts agree up to AGREE: there every head's clean z is its corrupted one, so a
    // patched head run computes only the later rows (the corrupted run's earlier ones its past);
    // a residual patch at position p leaves the rows before p as they were.
    Index agree = 0;
    while (agree < n && spec.clean[std::size_t(agree)] == spec.corrupt[std::size_t(agree)])
        ++agree;
    // Stacked, a task patches every head of one layer (patch_layer); else one head.
    const bool stacked = spec.heads && stackable(model, spec.controls) &&
                         (!info.causal || model.prefix_holds(agree, agree + H * (n - agree)));
    if (stacked && !info.causal) agree = 0;  // every row sees every other: nothing is shared
    agree = std::min(agree, corrupt.logits_position);
    const Index head_runs = spec.heads ? (stacked ? Index(L) : Index(L) * H) : 0;
    const Index resid_runs = spec.resid ? Index(L + 1) * n : 0;
    const double per_head_task = stacked ? double(H) : 1.0;
    detail::run_tasks(
        head_runs + resid_runs,
        [&](Index k) {
            if (stacked && k < head_runs) {
                const Matrix out = patch_layer(model, corrupt, capture, int(k), agree);
                const Index m = n - agree, at = corrupt.logits_position - agree;
                for (int h = 0; h < H; ++h) {
                    const Matrix y = out.row(h * m + at);
                    r.heads(int(k), h) = float(
                        ((token_logit(model, y, spec.answer) - token_logit(model, y, spec.wrong)) -
                         r.corrupt_diff) /
                        span);
                }
            } else if (k < head_runs) {
                const int l = int(k / H), h = int(k % H);
                HeadPatch hook(l, h, capture.z_of(l, h));
                r.heads(l, h) = restored(model::run_from_rows(model, corrupt, l, &hook, agree));
            } else {
                const int l = int((k - head_runs) / n);
                const Index p = (k - head_runs) % n;
                ResidPatch hook(l, {p}, clean.inputs[std::size_t(l)], L);
                r.resid(l, p) = restored(model::run_from_rows(model, corrupt, l, &hook, p));
            }
        },
        [&](Index finished) {
            const double heads = double(std::min(finished, head_runs));
            report(progress, (2.0 + heads * per_head_task + double(finished) - heads) / runs);
        });
    return r;
}

}  // namespace attn::interv
