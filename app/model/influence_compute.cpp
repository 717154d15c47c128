// AttnScope — the Influence view's numbers, from core's attribution functions.
// GPL-3.0-or-later.
#include "model/influence_compute.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/analysis/rollout.hpp"
#include "attn/attribution/attention_paths.hpp"
#include "attn/attribution/contributions.hpp"
#include "attn/attribution/faithfulness.hpp"
#include "attn/attribution/max_flow.hpp"
#include "attn/attribution/reverse_pass.hpp"
#include "attn/attribution/value_zeroing.hpp"
#include "attn/interventions/lens.hpp"
#include "attn/models/layer_description.hpp"
#include "attn/models/run.hpp"
#include "attn/models/run_inputs.hpp"
#include "attn/models/vocabulary.hpp"
#include "attn/util/error.hpp"
#include "attn/util/random.hpp"

namespace influence {
namespace {

std::vector<double> rowOf(const attn::MatrixD& m, attn::Index row) {
    return std::vector<double>(m.row(row).data(), m.row(row).data() + m.cols());
}

/// Empty when MODEL's family describes its layers for the reverse pass, else core's refusal.
QString gradientRefusal(const attn::model::Model& model) {
    try {
        (void)model.describe_output();
        if (model.info().layers > 0) (void)model.describe_layer(0);
    } catch (const attn::ArgumentError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

/// Row P of attention_flow(MIXED): the same layer graph, only the n maximum flows into top node
/// P (the whole matrix is n² of them, and the strip reads one row).
std::vector<double> flowRow(const std::vector<attn::MatrixD>& mixed, attn::Index p,
                            attn::Progress* progress) {
    const attn::Index n = mixed.front().rows(), layers = attn::Index(mixed.size());
    attn::attrib::FlowGraph graph((layers + 1) * n);
    for (attn::Index l = 0; l < layers; ++l)
        for (attn::Index i = 0; i < n; ++i)
            for (attn::Index j = 0; j < n; ++j)
                graph.add_edge(l * n + j, (l + 1) * n + i, mixed[std::size_t(l)](i, j));
    std::vector<double> row;
    for (attn::Index j = 0; j < n; ++j) {
        row.push_back(graph.max_flow(j, layers * n + p));
        attn::report(progress, double(j + 1) / double(n));
    }
    return row;
}

}  // namespace

QString drawable(const std::string& text) {
    QString t = QString::fromStdString(text);
    t.replace(QLatin1Char('\n'), QChar(0x23CE)).replace(QLatin1Char('\t'), QChar(0x21E5));
    if (!t.isEmpty() && t.trimmed().isEmpty()) return QString(QChar(0x2423));
    return t;
}

const QStringList& methodKeys() {
    static const QStringList keys{QStringLiteral("saliency"),
                                  QStringLiteral("input_x_gradient"),
                                  QStringLiteral("integrated_gradients"),
                                  QStringLiteral("attention"),
                                  QStringLiteral("rollout"),
                                  QStringLiteral("attention_flow"),
                                  QStringLiteral("alti_rollout"),
                                  QStringLiteral("value_zeroing"),
                                  QStringLiteral("norm_based")};
    return keys;
}

bool isGradient(const QString& key) {
    return key == QLatin1StringView("saliency") || key == QLatin1StringView("input_x_gradient") ||
           key == QLatin1StringView("integrated_gradients");
}

const Strip* stripOf(const Result& r, const QString& key) {
    for (const Strip& s : r.strips)
        if (s.key == key) return &s;
    return nullptr;
}

attn::attrib::AttributionWork work(const attn::model::Model& model, int steps) {
    attn::attrib::AttributionWork w;
    for (const std::string& m : attn::attrib::method_names())
        if (m != "alti" && attn::attrib::unavailable_for(model, m).empty())
            w.methods.push_back(m);  // ALTI's layers are alti_rollout's: counted once
    w.steps = steps;
    w.flow_one_row = true;
    return w;
}

Result compute(const attn::model::ModelFolder& folder, const std::vector<std::int32_t>& ids,
               const attn::model::RunControls& controls, const Target& target, int steps,
               attn::Progress* progress) {
    const attn::model::Model& model = *folder.model;
    const attn::model::ModelInfo& info = model.info();
    const attn::Index n = attn::Index(ids.size());
    if (n == 0) throw attn::ArgumentError("the sentence gives no tokens: nothing to explain");
    // Core's rule, before any work: what `attnscope attribute` refuses, the tab refuses too.
    if (const std::string why = attn::attrib::work_refusal(info, n, work(model, steps));
        !why.empty())
        throw attn::ResourceError(why);
    Result r;
    r.ids = ids;
    r.layers = info.layers;
    r.heads = info.heads;
    r.causal = info.causal;
    r.steps = steps;
    for (const std::string& t : folder.tokenizer->display_tokens(ids))
        r.tokens << drawable(t);
    const attn::Index p = target.position.value_or(
        attn::model::fill_mask_position(info, *folder.tokenizer, ids).value_or(n - 1));
    if (p < 0 || p >= n)
        throw attn::ArgumentError("position " + std::to_string(p + 1) + " is outside the " +
                                  std::to_string(n) + " tokens");
    r.position = p;
    attn::PartProgress running(progress, 0.0, 0.05);
    const attn::model::Run run =
        attn::model::run(model, ids, controls, nullptr, &running, nullptr, p);
    if (run.logits.size() == 0)
        throw attn::ArgumentError(info.display + " folder without an output head: no logit to " +
                                  "explain");
    // The prediction at every position: the output head over the last residual rows.
    const attn::Matrix all =
        attn::model::without_padding(info, model.logits_rows(run.inputs.back()));
    for (attn::Index i = 0; i < n; ++i) {
        const attn::Vector row = all.row(i).transpose();
        const attn::interv::LensCell cell = attn::interv::top_tokens(row);
        r.topIds.push_back(cell.ids);
        r.topProbabilities.push_back(cell.probabilities);
        QStringList texts;
        for (std::int32_t id : cell.ids)
            texts << drawable(folder.tokenizer->token_text(id));
        r.topTexts.push_back(texts);
    }
    if (target.token) {
        if (*target.token < 0 || *target.token >= info.vocab)
            throw attn::ArgumentError("token id " + std::to_string(*target.token) +
                                      " is outside the vocabulary of " +
                                      std::to_string(info.vocab));
        r.target = *target.token;
    } else {
        r.target = r.topIds[std::size_t(p)][0];
    }
    r.targetText = drawable(folder.tokenizer->token_text(r.target));
    r.logit = double(run.logits[r.target]);

    const int L = info.layers, H = info.heads;
    r.attentionRows = attn::Matrix::Zero(attn::Index(L) * H, n);
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H && std::size_t(h) < run.layers[std::size_t(l)].heads.size(); ++h)
            r.attentionRows.row(attn::Index(l) * H + h) =
                run.layers[std::size_t(l)].heads[std::size_t(h)].weights.row(p);

    // The gradient methods, or the family's refusal in their strips.
    const QString refused = gradientRefusal(model);
    std::vector<std::pair<QString, std::vector<double>>> scores;
    if (refused.isEmpty()) {
        attn::attrib::GradientAsk ask;
        ask.gradient = ask.integrated = ask.attention = true;
        ask.steps = steps;
        attn::PartProgress part(progress, 0.05, 0.55);
        attn::attrib::GradientScores g =
            attn::attrib::gradient_scores(model, ids, controls, p, r.target, ask, &part);
        scores.push_back({QStringLiteral("saliency"), g.saliency});
        scores.push_back({QStringLiteral("input_x_gradient"), g.input_x_gradient});
        scores.push_back({QStringLiteral("integrated_gradients"), g.integrated_gradients});
        r.igDelta = g.ig_delta;
        r.attentionXGradient = std::move(g.attention_x_gradient);
    }
    // Where attention looked, followed through the layers, and what the blocks carried.
    scores.push_back(
        {QStringLiteral("attention"), rowOf(attn::mean_heads(run.layers.back().heads), p)});
    scores.push_back({QStringLiteral("rollout"), rowOf(attn::attrib::attention_rollout(run), p)});
    attn::PartProgress flowPart(progress, 0.55, 0.7);
    scores.push_back(
        {QStringLiteral("attention_flow"), flowRow(attn::attrib::mixed_layers(run), p, &flowPart)});
    attn::PartProgress altiPart(progress, 0.7, 0.8);
    scores.push_back(
        {QStringLiteral("alti_rollout"),
         rowOf(attn::attrib::compose_layers(attn::attrib::alti(model, run, &altiPart)), p)});
    // Value zeroing's layers composed as ALTI's (Mohebbi et al. 2023 roll them out too).
    attn::PartProgress zeroPart(progress, 0.8, 0.95);
    scores.push_back(
        {QStringLiteral("value_zeroing"),
         rowOf(attn::attrib::compose_layers(attn::attrib::value_zeroing(model, run, &zeroPart)),
               p)});
    // Norm-based in the last layer, summed over its heads: ‖α f‖ as the last layer's
    // attention strip is its weights' mean.
    attn::PartProgress normPart(progress, 0.95, 1.0);
    const std::vector<attn::Matrix> norms = attn::attrib::norm_based(model, run, &normPart);
    std::vector<double> lastNorms(std::size_t(n), 0.0);
    for (int h = 0; h < H; ++h)
        for (attn::Index j = 0; j < n; ++j)
            lastNorms[std::size_t(j)] += double(norms[std::size_t((L - 1) * H + h)](p, j));
    scores.push_back({QStringLiteral("norm_based"), lastNorms});

    for (const QString& key : methodKeys()) {
        Strip s{key, {}, {}};
        const auto found = std::find_if(scores.begin(), scores.end(),
                                        [&](const auto& named) { return named.first == key; });
        if (found != scores.end())
            s.values = found->second;
        else
            s.refusal = refused;
        r.strips.push_back(std::move(s));
    }
    // Agreement over the positions the erasure ranks (a decoder: those before P).
    const std::vector<attn::Index> positions = attn::attrib::ranked_positions(n, p, info.causal);
    std::vector<const Strip*> rated;
    for (const Strip& s : r.strips)
        if (!s.values.empty()) rated.push_back(&s);
    r.agreement = attn::Matrix::Zero(attn::Index(rated.size()), attn::Index(rated.size()));
    for (std::size_t a = 0; a < rated.size(); ++a) {
        r.agreementKeys << rated[a]->key;
        for (std::size_t b = 0; b < rated.size(); ++b) {
            std::vector<double> x, y;
            for (const attn::Index q : positions) {
                x.push_back(rated[a]->values[std::size_t(q)]);
                y.push_back(rated[b]->values[std::size_t(q)]);
            }
            r.agreement(attn::Index(a), attn::Index(b)) = float(attn::attrib::kendall_tau_b(x, y));
        }
    }
    attn::report(progress, 1.0);
    return r;
}

std::vector<std::vector<attn::Index>> randomOrders(const std::vector<attn::Index>& positions,
                                                   int orders) {
    attn::Rng rng(39);
    std::vector<std::vector<attn::Index>> out;
    for (int o = 0; o < orders; ++o) {
        std::vector<attn::Index> order = positions;
        for (std::size_t i = order.size(); i > 1; --i)  // Fisher–Yates
            std::swap(order[i - 1], order[std::size_t(rng.uniform() * double(i)) % i]);
        out.push_back(std::move(order));
    }
    return out;
}

Faithfulness faithfulness(const attn::model::Model& model, const attn::model::RunControls& controls,
                          const Result& r, int k, int orders, attn::Progress* progress) {
    Faithfulness f;
    f.k = k;
    f.orders = orders;
    const std::vector<attn::Index> positions =
        attn::attrib::ranked_positions(attn::Index(r.ids.size()), r.position, r.causal);
    std::vector<std::vector<attn::Index>> ranked;
    for (const Strip& s : r.strips)
        if (!s.values.empty()) {
            f.keys << s.key;
            ranked.push_back(attn::attrib::rank_by_magnitude(positions, s.values));
        }
    const std::vector<std::vector<attn::Index>> random = randomOrders(positions, orders);
    const double parts = double(ranked.size() + random.size());
    std::size_t done = 0;
    const auto curve = [&](const std::vector<attn::Index>& order) {
        attn::PartProgress part(progress, double(done) / parts, double(done + 1) / parts);
        ++done;
        return attn::attrib::erasure_curve(model, r.ids, controls, r.position, r.target, order, k,
                                           &part);
    };
    for (const auto& order : ranked)
        f.curves.push_back(curve(order));
    std::vector<std::vector<double>> baseline;
    for (const auto& order : random)
        baseline.push_back(curve(order));
    for (int i = 0; i <= k; ++i) {
        double sum = 0, squares = 0;
        for (const auto& c : baseline)
            sum += c[std::size_t(i)];
        const double mean = baseline.empty() ? 0.0 : sum / double(baseline.size());
        for (const auto& c : baseline)
            squares += (c[std::size_t(i)] - mean) * (c[std::size_t(i)] - mean);
        f.randomMean.push_back(mean);
        f.randomSpread.push_back(
            baseline.size() > 1 ? std::sqrt(squares / double(baseline.size() - 1)) : 0.0);
    }
    return f;
}

}  // namespace influence
