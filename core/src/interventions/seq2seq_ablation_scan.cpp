// AttnScope core — the head importance scan of an encoder–decoder. GPL-3.0-or-later.
#include "attn/interventions/seq2seq_ablation_scan.hpp"

#include <string>

#include "attn/interventions/ablation_scan.hpp"
#include "attn/util/error.hpp"
#include "seq2seq_sites.hpp"

namespace attn::interv {

double target_log_probability(const Matrix& logits, const std::vector<std::int32_t>& target) {
    double sum = 0;
    for (Index i = 0; i + 1 < Index(target.size()) && i < logits.rows(); ++i)
        sum += log_probability(logits.row(i).transpose(), target[std::size_t(i + 1)]);
    return sum;
}

Seq2SeqAblationScan seq2seq_ablation_scan(const model::Seq2SeqModel& model,
                                          const std::vector<std::int32_t>& source,
                                          const std::vector<std::int32_t>& target,
                                          const model::Seq2SeqControls& controls,
                                          Progress* progress) {
    if (target.size() < 2)
        throw ArgumentError("the target has " + std::to_string(target.size()) +
                            " decoder input: the scan scores the tokens after the start token");
    const model::Seq2SeqInfo& info = model.info();
    report(progress, 0.0);
    const auto logprob = [&](const model::Seq2SeqControls& c) {
        return target_log_probability(model::teacher_forced(model, source, target, c).logits,
                                      target);
    };
    Seq2SeqAblationScan r;
    r.target_logprob = logprob(controls);
    s2s::each_head(info, r.encoder, r.decoder, r.cross, 1, progress, [&](const model::Site& site) {
        model::Seq2SeqControls c = controls;
        c.ablate.push_back(site);
        s2s::of_part(site.component, r.encoder, r.decoder, r.cross)(site.layer, site.head) =
            logprob(c) - r.target_logprob;
    });
    return r;
}

}  // namespace attn::interv
