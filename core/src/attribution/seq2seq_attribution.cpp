// AttnScope core — token attributions of an encoder–decoder's prediction. GPL-3.0-or-later.
#include "attn/attribution/seq2seq_attribution.hpp"

#include <algorithm>
#include <cstdio>

#include "attn/models/seq2seq_description.hpp"
#include "attn/util/error.hpp"
#include "seq2seq_reverse.hpp"

namespace attn::attrib {

namespace {

using model::Component;

void add_rows(AttributionResult& r, const std::string& name, const std::vector<double>& v) {
    r.arrays.push_back({name, {std::uint64_t(v.size())}, std::vector<float>(v.begin(), v.end())});
    r.token_scores.emplace_back(name, v);
}

/// Layer-by-layer heads' matrices (rows × cols each) as one [layers, heads, rows, cols] array.
void add_heads(AttributionResult& r, const std::string& name, const std::vector<Matrix>& ms,
               int layers, int heads) {
    const Index rows = ms.empty() ? 0 : ms[0].rows(), cols = ms.empty() ? 0 : ms[0].cols();
    NamedArray a{
        name,
        {std::uint64_t(layers), std::uint64_t(heads), std::uint64_t(rows), std::uint64_t(cols)},
        {}};
    for (const Matrix& m : ms)  // row-major, as the array
        a.values.insert(a.values.end(), m.data(), m.data() + m.size());
    r.arrays.push_back(std::move(a));
}

/// Per row i: ‖g_i‖₂ (SALIENCY) or Σ_d x_i·g_i.
std::vector<double> per_row(const Matrix& x, const Matrix& g, bool saliency) {
    std::vector<double> out(std::size_t(g.rows()));
    for (Index i = 0; i < g.rows(); ++i)
        out[std::size_t(i)] = saliency ? double(g.row(i).cast<double>().norm())
                                       : x.row(i).cast<double>().dot(g.row(i).cast<double>());
    return out;
}

/// Empty when the reverse passes MODEL's run of NS source and NT target tokens needs (one, and
/// M + 1 more for integrated gradients) stay under the limit every attribution keeps (2·10¹²
/// operations, about an hour of one core), else the refusal.
std::string over_limit(const model::Seq2SeqInfo& info, Index ns, Index nt, int passes) {
    const double d = info.d_model, s = double(ns), t = double(nt);
    // A forward's multiply-adds (projections, feed-forward at about 8·d², scores); a reverse
    // pass is about three forwards with its recomputation and the reverse itself.
    const double forward =
        info.encoder_layers * (12 * s * d * d + 4 * s * s * d) +
        info.decoder_layers * (16 * t * d * d + 8 * s * d * d + 4 * t * t * d + 4 * t * s * d);
    const double ops = 4 * forward * double(passes);
    if (ops <= 2e12) return {};
    char count[32];
    std::snprintf(count, sizeof count, "%.1e", ops);
    return "the attribution of " + std::to_string(ns) + " source and " + std::to_string(nt) +
           " target tokens needs about " + count +
           " operations (the limit is 2e12, about an hour of one core); use shorter sentences "
           "or fewer integrated-gradient steps";
}

double sum(const std::vector<double>& v) {
    double s = 0;
    for (const double x : v)
        s += x;
    return s;
}

}  // namespace

const std::vector<std::string>& seq2seq_method_names() {
    static const std::vector<std::string> names{"saliency", "input_x_gradient",
                                                "integrated_gradients", "attention_x_gradient",
                                                "norm_based"};
    return names;
}

std::string seq2seq_unavailable(const std::string& method) {
    const auto& names = seq2seq_method_names();
    if (std::find(names.begin(), names.end(), method) != names.end()) return {};
    if (method == "rollout" || method == "attention_flow" || method == "alti" ||
        method == "alti_rollout")
        return method +
               " is not defined for an encoder–decoder: it composes one stack's layers over "
               "the same tokens, while the decoder's tokens read the encoder's through "
               "cross-attention, a second graph with no residual identity between them (use "
               "saliency, input_x_gradient, integrated_gradients, attention_x_gradient or "
               "norm_based)";
    if (method == "value_zeroing")
        return "value_zeroing is not defined for an encoder–decoder yet: zeroing a source "
               "value changes every decoder layer's cross-attention, not one layer's output "
               "(use saliency, input_x_gradient, integrated_gradients, attention_x_gradient "
               "or norm_based)";
    return "'" + method +
           "' is not an attribution method of an encoder–decoder (they are saliency, "
           "input_x_gradient, integrated_gradients, attention_x_gradient, norm_based)";
}

AttributionResult attribute_seq2seq(const model::Seq2SeqModel& model,
                                    const std::vector<std::int32_t>& source,
                                    const std::vector<std::int32_t>& target,
                                    const Seq2SeqAttributionRequest& request, Progress* progress) {
    std::vector<std::string> methods = request.methods;
    if (methods.empty()) methods = seq2seq_method_names();
    for (const std::string& m : methods)
        if (std::string why = seq2seq_unavailable(m); !why.empty()) throw ArgumentError(why);
    const auto wants = [&](const char* m) {
        return std::find(methods.begin(), methods.end(), m) != methods.end();
    };
    if (source.empty()) throw ArgumentError("the source has no tokens");
    if (target.empty()) throw ArgumentError("the target has no tokens");
    if (request.steps < 1) throw ArgumentError("integrated gradients need at least one step");
    // The reverse pass runs the zero ablation of HeadStep only: a control it would not apply
    // is refused by name rather than explained away.
    if (request.controls.ablation == model::AblationMode::Mean && !request.controls.ablate.empty())
        throw ArgumentError(
            "attribution on an encoder–decoder explains zero-ablated heads only, not mean "
            "ablation");
    if (!request.controls.knockouts.empty())
        throw ArgumentError("attribution on an encoder–decoder does not take knockouts");
    const model::Seq2SeqInfo& info = model.info();
    const Index ns = Index(source.size()), nt = Index(target.size());
    const int passes = 1 + (wants("integrated_gradients") ? request.steps + 1 : 0);
    if (const std::string why = over_limit(info, ns, nt, passes); !why.empty())
        throw ResourceError(why);
    const model::Seq2SeqDescription desc = model.describe();
    AttributionResult r;
    r.position = request.position.value_or(nt - 1);
    if (r.position < 0 || r.position >= nt)
        throw ArgumentError("position " + std::to_string(r.position) +
                            " is not a target position (0 to " + std::to_string(nt - 1) + ")");
    const Matrix xs = model.embed_source(source), xt = model.embed_target(target, 0);
    const detail::Seq2SeqForward forward(model, desc, xs, xt, request.controls);
    if (request.target) {
        if (*request.target < 0 || *request.target >= info.vocab)
            throw ArgumentError("target " + std::to_string(*request.target) +
                                " is outside the vocabulary of " + std::to_string(info.vocab));
        r.target = *request.target;
    } else {
        const model::Seq2SeqRun run =
            model::teacher_forced(model, source, target, request.controls);
        Index best = 0;
        run.logits.row(r.position).maxCoeff(&best);
        r.target = std::int32_t(best);
    }
    r.logit = forward.logit(r.position, r.target);
    report(progress, 0.02);
    const bool gradient = wants("saliency") || wants("input_x_gradient");
    const bool axg = wants("attention_x_gradient");
    if (gradient || axg) {
        const detail::Seq2SeqForward::Gradient g = forward.gradient(r.position, r.target, axg);
        for (const bool saliency : {true, false}) {
            const std::string name = saliency ? "saliency" : "input_x_gradient";
            if (!wants(name.c_str())) continue;
            add_rows(r, "source_" + name, per_row(xs, g.source, saliency));
            add_rows(r, "target_" + name, per_row(xt, g.target, saliency));
        }
        if (axg) {
            add_heads(r, "encoder_attention_x_gradient", g.encoder_axg, info.encoder_layers,
                      info.heads);
            add_heads(r, "decoder_attention_x_gradient", g.decoder_axg, info.decoder_layers,
                      info.heads);
            add_heads(r, "cross_attention_x_gradient", g.cross_axg, info.decoder_layers,
                      info.heads);
        }
    }
    report(progress, 0.05);
    if (wants("integrated_gradients")) {
        // Both inputs scaled together from the zero baseline, midpoint rule.
        Matrix sum_s = Matrix::Zero(ns, xs.cols()), sum_t = Matrix::Zero(nt, xt.cols());
        const int m = request.steps;
        for (int k = 1; k <= m; ++k) {
            const float alpha = float((double(k) - 0.5) / double(m));
            const detail::Seq2SeqForward f(model, desc, alpha * xs, alpha * xt, request.controls);
            const detail::Seq2SeqForward::Gradient g = f.gradient(r.position, r.target, false);
            sum_s += g.source;
            sum_t += g.target;
            report(progress, 0.05 + 0.9 * double(k) / double(m));
        }
        const std::vector<double> ig_s = per_row(xs, sum_s / float(m), false),
                                  ig_t = per_row(xt, sum_t / float(m), false);
        const detail::Seq2SeqForward zero(model, desc, Matrix::Zero(ns, xs.cols()),
                                          Matrix::Zero(nt, xt.cols()), request.controls);
        add_rows(r, "source_integrated_gradients", ig_s);
        add_rows(r, "target_integrated_gradients", ig_t);
        const double delta = sum(ig_s) + sum(ig_t) - (r.logit - zero.logit(r.position, r.target));
        r.arrays.push_back({"ig_delta", {1}, {float(delta)}});
    }
    if (wants("norm_based")) {
        add_heads(r, "encoder_norm_based", forward.norm_based(Component::Encoder),
                  info.encoder_layers, info.heads);
        add_heads(r, "decoder_norm_based", forward.norm_based(Component::Decoder),
                  info.decoder_layers, info.heads);
        add_heads(r, "cross_norm_based", forward.norm_based(Component::Cross), info.decoder_layers,
                  info.heads);
    }
    report(progress, 1.0);
    return r;
}

}  // namespace attn::attrib
