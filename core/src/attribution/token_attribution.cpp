// AttnScope core — every token attribution of one prediction, by name. GPL-3.0-or-later.
#include "attn/attribution/token_attribution.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "attn/analysis/rollout.hpp"
#include "attn/attribution/attention_paths.hpp"
#include "attn/attribution/contributions.hpp"
#include "attn/attribution/faithfulness.hpp"
#include "attn/attribution/reverse_pass.hpp"
#include "attn/attribution/value_zeroing.hpp"
#include "attn/models/layer_description.hpp"
#include "attn/models/run.hpp"
#include "attn/util/error.hpp"

namespace attn::attrib {

namespace {

/// The gradient methods: the reverse pass through the family's layer description.
bool needs_reverse_pass(const std::string& m) {
    return m == "saliency" || m == "input_x_gradient" || m == "integrated_gradients" ||
           m == "attention_x_gradient";
}

/// Empty when MODEL's family describes its layers (the gradient methods need it), else the
/// family's refusal.
std::string description_refusal(const model::Model& model) {
    try {
        (void)model.describe_output();
        if (model.info().layers > 0) (void)model.describe_layer(0);
        return {};
    } catch (const ArgumentError& e) {
        return e.what();
    }
}

void add_vector(AttributionResult& r, const std::string& name, const std::vector<double>& v) {
    r.arrays.push_back({name, {std::uint64_t(v.size())}, std::vector<float>(v.begin(), v.end())});
}

template <class M>
void add_matrices(AttributionResult& r, const std::string& name, const std::vector<M>& ms,
                  std::vector<std::uint64_t> shape) {
    NamedArray a{name, std::move(shape), {}};
    for (const M& m : ms)
        for (Index i = 0; i < m.rows(); ++i)
            for (Index j = 0; j < m.cols(); ++j)
                a.values.push_back(float(m(i, j)));
    r.arrays.push_back(std::move(a));
}

void add_matrix(AttributionResult& r, const std::string& name, const MatrixD& m) {
    add_matrices(r, name, std::vector<MatrixD>{m},
                 {std::uint64_t(m.rows()), std::uint64_t(m.cols())});
}

/// The refusal of METHOD when its estimated multiply-adds OPS would keep a CPU busy for hours
/// (no method may seem to hang): the method, the tokens and the ways out.
std::string over_limit(const std::string& method, double ops, Index n, bool optional) {
    constexpr double kMaxOps = 2e12;
    if (ops <= kMaxOps) return {};
    char count[32];
    std::snprintf(count, sizeof count, "%.1e", ops);
    std::string out = method + " of " + std::to_string(n) + " tokens needs about " + count +
                      " operations (the limit is 2e12, about an hour of one core); use a " +
                      "shorter text";
    if (method == "integrated_gradients") out += " or fewer steps";
    if (optional) out += " or leave " + method + " out of the methods";
    return out;
}

/// The methods that read the recorded run (its weights, values, outputs), not the reverse pass.
bool needs_recorded_run(const std::string& m) {
    return m == "norm_based" || m == "value_zeroing" || m == "alti" || m == "alti_rollout" ||
           m == "attention_flow" || m == "rollout";
}

std::vector<double> row_of(const MatrixD& m, Index row) {
    return std::vector<double>(m.row(row).data(), m.row(row).data() + m.cols());
}

}  // namespace

const std::vector<std::string>& method_names() {
    static const std::vector<std::string> names{"saliency",
                                                "input_x_gradient",
                                                "integrated_gradients",
                                                "attention_x_gradient",
                                                "norm_based",
                                                "value_zeroing",
                                                "alti",
                                                "alti_rollout",
                                                "attention_flow",
                                                "rollout"};
    return names;
}

std::string unavailable(const std::string& method) {
    const auto& names = method_names();
    if (std::find(names.begin(), names.end(), method) == names.end())
        return "'" + method + "' is not an attribution method (they are saliency, " +
               "input_x_gradient, integrated_gradients, attention_x_gradient, norm_based, " +
               "value_zeroing, alti, alti_rollout, attention_flow, rollout)";
    return {};
}

std::string work_refusal(const model::ModelInfo& info, Index n, const AttributionWork& work) {
    const auto wants = [&](const char* m) {
        return std::find(work.methods.begin(), work.methods.end(), m) != work.methods.end();
    };
    const double nn = double(n) * double(n), layers = double(info.layers),
                 width = double(info.d_model);
    std::string why;
    const auto check = [&](const char* method, double ops) {
        if (why.empty() && wants(method)) why = over_limit(method, ops, n, work.optional);
    };
    check("value_zeroing", layers * double(n) * (12 * double(n) * width * width + 2 * nn * width));
    check("alti", layers * nn * double(info.heads) * width);
    check("alti_rollout", layers * nn * double(info.heads) * width);
    // A max-flow per (input, top) pair over a graph of L·n² edges: n² of them, or n for one row.
    check("attention_flow", (work.flow_one_row ? double(n) : nn) * nn * layers * (layers + 1));
    // One reverse pass: at most the forward three times over (a layer past the kept tapes runs
    // forward twice; the reverse costs about two forwards).
    const double pass = 4 * layers * (12 * double(n) * width * width + 4 * nn * width);
    check("integrated_gradients", pass * double(std::max(work.steps, 1) + 1));
    return why;
}

std::string unavailable_for(const model::Model& model, const std::string& method) {
    if (std::string why = unavailable(method); !why.empty()) return why;
    if (!needs_reverse_pass(method)) return {};
    const std::string why = description_refusal(model);
    return why.empty() ? why : method + ": " + why;
}

AttributionResult attribute_tokens(const model::Model& model, const std::vector<std::int32_t>& ids,
                                   const AttributionRequest& request, Progress* progress) {
    std::vector<std::string> methods = request.methods;
    if (methods.empty())
        for (const std::string& m : method_names())
            if (unavailable_for(model, m).empty()) methods.push_back(m);
    for (const std::string& m : methods)
        if (const std::string why = unavailable(m); !why.empty()) throw ArgumentError(why);
    const auto wants = [&](const char* m) {
        return std::find(methods.begin(), methods.end(), m) != methods.end();
    };
    const model::ModelInfo& info = model.info();
    const Index n = Index(ids.size());
    const Index p = request.position.value_or(n - 1);
    if (p < 0 || p >= n)
        throw ArgumentError("position " + std::to_string(p) + " is outside the " +
                            std::to_string(n) + " tokens (0…" + std::to_string(n - 1) + ")");
    // Refused before any work: the same rule as the Influence tab's.
    if (const std::string why = work_refusal(info, n, {methods, request.steps, false, true});
        !why.empty())
        throw ResourceError(why);
    // The recorded run keeps every head's n × n weights: only what needs them runs it. The
    // gradient methods alone take the logits from the described forward, whose residual
    // stream is then their reverse pass's checkpoints.
    const bool recorded = request.faithfulness >= 0 ||
                          std::any_of(methods.begin(), methods.end(), needs_recorded_run);
    PartProgress running(progress, 0.0, 0.05);
    model::Run run;
    DescribedForward forward;
    Vector logits;
    if (recorded) {
        run = model::run(model, ids, request.controls, nullptr, &running, nullptr, p);
        logits = run.logits;
    } else {
        model::check_run(model, ids, request.controls);
        forward = described_forward_at(model, model.embed(ids, 0), request.controls, p, &running);
        logits = model.logits(forward.inputs.back().row(0));
        if (!logits.allFinite())
            throw NonFiniteError("the logits at position " + std::to_string(p) +
                                 " have a non-finite value: the weights overflow float32");
    }
    if (logits.size() == 0)
        throw ArgumentError(info.display + " folder without an output head: no logit to explain");
    AttributionResult r;
    r.position = p;
    if (request.target) {
        if (*request.target < 0 || *request.target >= info.vocab)
            throw ArgumentError("target token id " + std::to_string(*request.target) +
                                " is outside the vocabulary of " + std::to_string(info.vocab));
        r.target = *request.target;
    } else {
        const Index top =
            info.text_vocab > 0 ? std::min<Index>(info.text_vocab, logits.size()) : logits.size();
        Index best = 0;
        logits.head(top).maxCoeff(&best);
        r.target = std::int32_t(best);
    }
    r.logit = double(logits[r.target]);

    const std::uint64_t L = std::uint64_t(info.layers), H = std::uint64_t(info.heads),
                        N = std::uint64_t(n);
    // Token scores at P for the erasure curves and the agreement: name, scores.
    std::vector<std::pair<std::string, std::vector<double>>> token_scores;
    if (recorded)
        token_scores.push_back({"attention", row_of(mean_heads(run.layers.back().heads), p)});
    PartProgress methods_progress(progress, 0.05, request.faithfulness >= 0 ? 0.6 : 1.0);
    attrib::GradientAsk ask;
    ask.gradient = wants("saliency") || wants("input_x_gradient");
    ask.integrated = wants("integrated_gradients");
    ask.attention = wants("attention_x_gradient");
    ask.steps = request.steps;
    if (!recorded) ask.forward = &forward;
    if (ask.gradient || ask.integrated || ask.attention) {
        PartProgress part(&methods_progress, 0.0, 0.5);
        GradientScores g = gradient_scores(model, ids, request.controls, p, r.target, ask, &part);
        for (const auto& [name, v] : {std::pair{"saliency", &g.saliency},
                                      std::pair{"input_x_gradient", &g.input_x_gradient},
                                      std::pair{"integrated_gradients", &g.integrated_gradients}})
            if (wants(name)) {
                add_vector(r, name, *v);
                token_scores.push_back({name, *v});
            }
        if (wants("integrated_gradients")) add_vector(r, "ig_delta", {g.ig_delta});
        if (wants("attention_x_gradient"))
            add_matrices(r, "attention_x_gradient", g.attention_x_gradient, {L, H, N, N});
    }
    if (wants("norm_based"))
        add_matrices(r, "norm_based", norm_based(model, run, &methods_progress), {L, H, N, N});
    if (wants("value_zeroing"))
        add_matrices(r, "value_zeroing", value_zeroing(model, run, &methods_progress), {L, N, N});
    if (wants("alti") || wants("alti_rollout")) {
        const std::vector<MatrixD> c = alti(model, run, &methods_progress);
        const MatrixD rolled = compose_layers(c);
        if (wants("alti")) add_matrices(r, "alti", c, {L, N, N});
        add_matrix(r, "alti_rollout", rolled);
        token_scores.push_back({"alti_rollout", row_of(rolled, p)});
    }
    if (wants("attention_flow")) {
        const MatrixD flow = attention_flow(mixed_layers(run), &methods_progress);
        add_matrix(r, "attention_flow", flow);
        token_scores.push_back({"attention_flow", row_of(flow, p)});
    }
    if (wants("rollout")) {
        const MatrixD rolled = attention_rollout(run);
        add_matrix(r, "rollout", rolled);
        token_scores.push_back({"rollout", row_of(rolled, p)});
    }
    if (request.faithfulness < 0) {
        r.token_scores = std::move(token_scores);
        return r;
    }

    const std::vector<Index> positions = ranked_positions(n, p, info.causal);
    const std::size_t m = token_scores.size();
    for (std::size_t k = 0; k < m; ++k) {
        const auto& [name, scores] = token_scores[k];
        PartProgress part(progress, 0.6 + 0.4 * double(k) / double(m),
                          0.6 + 0.4 * double(k + 1) / double(m));
        const std::vector<double> curve =
            erasure_curve(model, ids, request.controls, p, r.target,
                          rank_by_magnitude(positions, scores), request.faithfulness, &part);
        r.arrays.push_back({"faith_" + name,
                            {std::uint64_t(curve.size())},
                            std::vector<float>(curve.begin(), curve.end())});
    }
    NamedArray agreement{"agreement", {m, m}, {}};
    for (std::size_t a = 0; a < m; ++a) {
        r.agreement_methods.push_back(token_scores[a].first);
        for (std::size_t b = 0; b < m; ++b) {
            std::vector<double> x, y;
            for (const Index q : positions) {
                x.push_back(token_scores[a].second[std::size_t(q)]);
                y.push_back(token_scores[b].second[std::size_t(q)]);
            }
            agreement.values.push_back(float(kendall_tau_b(x, y)));
        }
    }
    r.arrays.push_back(std::move(agreement));
    r.token_scores = std::move(token_scores);
    return r;
}

}  // namespace attn::attrib
