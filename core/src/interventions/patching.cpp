// AttnScope core — activation patching. GPL-3.0-or-later.
#include "attn/interventions/patching.hpp"

#include <cmath>
#include <string>

#include "../models/run_from_rows.hpp"
#include "../util/parallel.hpp"
#include "attn/interventions/attribution.hpp"
#include "attn/interventions/capture.hpp"
#include "attn/util/error.hpp"

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
    if (clean.logits.size() > 1) {
        const Vector centred = clean.logits.array() - clean.logits.mean();
        r.logit_scale = std::sqrt(double(centred.squaredNorm()) / double(centred.size()));
    }
    const double span = r.clean_diff - r.corrupt_diff;
    if (span == 0.0)
        throw ArgumentError(
            "the logit difference of the two answers is the same in the clean "
            "and the corrupted run: patching has nothing to restore");
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
    const Index head_runs = spec.heads ? Index(L) * H : 0;
    const Index resid_runs = spec.resid ? Index(L + 1) * n : 0;
    detail::run_tasks(
        head_runs + resid_runs,
        [&](Index k) {
            if (k < head_runs) {
                const int l = int(k / H), h = int(k % H);
                HeadPatch hook(l, h, capture.z_of(l, h));
                r.heads(l, h) =
                    restored(model::run_from_rows(model, corrupt, l, &hook, agree));
            } else {
                const int l = int((k - head_runs) / n);
                const Index p = (k - head_runs) % n;
                ResidPatch hook(l, {p}, clean.inputs[std::size_t(l)], L);
                r.resid(l, p) =
                    restored(model::run_from_rows(model, corrupt, l, &hook, p));
            }
        },
        [&](Index finished) { report(progress, (2.0 + double(finished)) / runs); });
    return r;
}

}  // namespace attn::interv
