// AttnScope core — the ablation scan of one prompt. GPL-3.0-or-later.
#include "attn/interventions/ablation_scan.hpp"

#include <cmath>
#include <string>

#include "../util/parallel.hpp"
#include "attn/models/run.hpp"
#include "attn/util/error.hpp"

namespace attn::interv {

double log_probability(const Vector& logits, std::int32_t token) {
    // Shifted by the largest logit so that exp never overflows; summed in double.
    const double top = double(logits.maxCoeff());
    double sum = 0;
    for (Index i = 0; i < logits.size(); ++i)
        sum += std::exp(double(logits[i]) - top);
    return double(logits[token]) - top - std::log(sum);
}

AblationScan ablation_scan(const model::Model& model, const std::vector<std::int32_t>& ids,
                           std::int32_t answer, model::AblationMode mode, Progress* progress) {
    const model::ModelInfo& info = model.info();
    if (answer < 0 || answer >= info.vocab)
        throw ArgumentError("answer token " + std::to_string(answer) +
                            " is outside the vocabulary of " + std::to_string(info.vocab));
    const int L = info.layers, H = info.heads;
    const double runs = 1.0 + double(L) * H;
    report(progress, 0.0);
    AblationScan scan;
    scan.answer_logprob = log_probability(model::run(model, ids).logits, answer);
    report(progress, 1.0 / runs);
    scan.effects.resize(L, H);
    // Each ablated run is independent: one per task, each cell written by its own task.
    detail::run_tasks(
        Index(L) * H,
        [&](Index k) {
            model::RunControls controls;
            controls.interventions.ablated = {{model::kSingleStack, int(k / H), int(k % H)}};
            controls.interventions.ablation = mode;
            scan.effects(k / H, k % H) =
                log_probability(model::run(model, ids, controls).logits, answer) -
                scan.answer_logprob;
        },
        [&](Index finished) { report(progress, (1.0 + double(finished)) / runs); });
    return scan;
}

}  // namespace attn::interv
