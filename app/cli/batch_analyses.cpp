// AttnScope — `attnscope batch`: one dataset line through one analysis. GPL-3.0-or-later.
#include "cli/batch_analyses.hpp"

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QJsonValue>
#include <cmath>

#include "attn/analysis/census.hpp"
#include "attn/attribution/token_attribution.hpp"
#include "attn/interventions/ablation_scan.hpp"
#include "attn/interventions/patching.hpp"
#include "attn/models/families.hpp"
#include "attn/models/run_inputs.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/scene/scene_layers.hpp"
#include "attn/util/error.hpp"

namespace cli::batch {

namespace {

/// A line's problem: its message is the reason it is skipped (or the run stopped).
struct BadLine {
    std::string why;
};

QString fieldText(const QJsonObject& o, const char* name, const char* needs) {
    const QJsonValue v = o.value(QLatin1StringView(name));
    if (v.isUndefined()) throw BadLine{std::string("no \"") + name + "\" field (" + needs + ")"};
    if (!v.isString()) throw BadLine{std::string("\"") + name + "\" is not a string"};
    return v.toString();
}

/// The token ids of TEXT (WHAT names it), no more than the model's positions.
std::vector<std::int32_t> lineTokens(const attn::model::ModelFolder& folder, const QString& text,
                                     const char* what) {
    std::vector<std::int32_t> ids = folder.tokenizer->encode(text.toStdString());
    const int limit = folder.model->info().max_positions;
    if (ids.empty()) throw BadLine{std::string("the ") + what + " has no tokens"};
    if (limit > 0 && ids.size() > std::size_t(limit))
        throw BadLine{std::string("the ") + what + " has " + std::to_string(ids.size()) +
                      " tokens, more than the model's " + std::to_string(limit) + " positions"};
    return ids;
}

/// An answer field: a token id, or a text of exactly one token. *GIVEN: as the line gave it.
std::int32_t answerId(const attn::model::ModelFolder& folder, const QJsonObject& o,
                      const char* name, const char* needs, std::string* given) {
    const QJsonValue v = o.value(QLatin1StringView(name));
    if (v.isUndefined()) throw BadLine{std::string("no \"") + name + "\" field (" + needs + ")"};
    const int vocab = folder.model->info().vocab;
    if (v.isDouble()) {
        const double d = v.toDouble();
        if (d != std::floor(d) || d < 0 || d >= double(vocab))
            throw BadLine{std::string("\"") + name + "\": " + QString::number(d).toStdString() +
                          " is not a token id of the vocabulary of " + std::to_string(vocab)};
        *given = std::to_string(std::int64_t(d));
        return std::int32_t(d);
    }
    if (!v.isString())
        throw BadLine{std::string("\"") + name + "\" is neither a text nor a token id"};
    *given = v.toString().toStdString();
    const std::vector<std::int32_t> ids = folder.tokenizer->encode(*given);
    if (ids.size() != 1)
        throw BadLine{std::string("\"") + name + "\" \"" + *given + "\" is " +
                      std::to_string(ids.size()) + " tokens; give one token, or its id"};
    return ids[0];
}

void patchLine(const Runner& r, const QJsonObject& o, Entry& e) {
    const attn::model::ModelFolder& folder = *r.scene.model;
    const char* needs = "patch needs clean, corrupt, answer and wrong";
    const QString clean = fieldText(o, "clean", needs), corrupt = fieldText(o, "corrupt", needs);
    std::string answer, wrong;
    attn::interv::PatchSpec spec;
    spec.answer = answerId(folder, o, "answer", needs, &answer);
    spec.wrong = answerId(folder, o, "wrong", needs, &wrong);
    spec.clean = lineTokens(folder, clean, "clean prompt");
    spec.corrupt = lineTokens(folder, corrupt, "corrupted prompt");
    spec.resid = false;  // the batch keeps the heads' map
    const attn::interv::PatchResult p = attn::interv::patch(*folder.model, spec);
    e.values = {textValue(clean.toStdString()),
                textValue(corrupt.toStdString()),
                textValue(answer),
                textValue(wrong),
                i32Value({spec.answer}),
                i32Value({spec.wrong}),
                i32Value(spec.clean),
                i32Value(spec.corrupt),
                f32Value(p.heads.data(), std::size_t(p.heads.size())),
                f64Value({p.clean_diff}),
                f64Value({p.corrupt_diff}),
                f64Value({p.logit_scale})};
}

void ablateLine(const Runner& r, const QJsonObject& o, Entry& e) {
    const attn::model::ModelFolder& folder = *r.scene.model;
    const char* needs = "ablate needs text and answer";
    const QString text = fieldText(o, "text", needs);
    std::string answer;
    const std::int32_t id = answerId(folder, o, "answer", needs, &answer);
    const std::vector<std::int32_t> ids = lineTokens(folder, text, "text");
    const attn::interv::AblationScan scan =
        attn::interv::ablation_scan(*folder.model, ids, id, r.ablation);
    e.values = {textValue(text.toStdString()),
                textValue(answer),
                i32Value({id}),
                i32Value(ids),
                f64Value({scan.answer_logprob}),
                f64Value(std::vector<double>(scan.effects.data(),
                                             scan.effects.data() + scan.effects.size()))};
}

void censusLine(const Runner& r, const QJsonObject& o, Entry& e) {
    const QString text = fieldText(o, "text", "census needs text");
    attn::SceneSpec spec = r.scene;
    spec.text = text.toStdString();
    const std::vector<std::int32_t> ids = lineTokens(*spec.model, text, "text");
    const attn::Census census = attn::census(spec);
    std::vector<double> scores;
    std::vector<std::int32_t> labels;
    for (const attn::HeadCensus& h : census.entries) {
        scores.insert(scores.end(), h.scores.begin(), h.scores.end());
        labels.push_back(std::int32_t(h.label));
    }
    e.values = {textValue(text.toStdString()), i32Value(ids), f64Value(scores), i32Value(labels)};
}

void computeLine(const Runner& r, const QJsonObject& o, Entry& e) {
    const QString text = fieldText(o, "text", "compute needs text");
    attn::SceneSpec spec = r.scene;
    spec.text = text.toStdString();
    const std::vector<std::int32_t> ids = lineTokens(*spec.model, text, "text");
    std::vector<double> entropy, maxWeight, distance;
    attn::for_each_layer(
        spec,
        [&](attn::Index, const attn::SceneResult& layer) {
            for (const attn::HeadStats& s : layer.stats) {
                entropy.push_back(s.entropy);
                maxWeight.push_back(s.max_weight);
                distance.push_back(s.mean_distance);
            }
        },
        nullptr, false);
    e.values = {textValue(text.toStdString()), i32Value(ids), f64Value(entropy),
                f64Value(maxWeight), f64Value(distance)};
}

/// Core's attribute_tokens on the line's text, as `attnscope attribute --methods M --steps S
/// --faithfulness K` explains it: the last position (BERT: the first [MASK]), the answer when the
/// line gives one, else the model's top token there.
void attributeLine(const Runner& r, const QJsonObject& o, Entry& e) {
    const attn::model::ModelFolder& folder = *r.scene.model;
    const QString text = fieldText(o, "text", "attribute needs text");
    const std::vector<std::int32_t> ids = lineTokens(folder, text, "text");
    attn::attrib::AttributionRequest ask;
    std::string answer;
    if (o.contains(QLatin1StringView("answer")))
        ask.target = answerId(folder, o, "answer", "", &answer);
    ask.methods = r.attribute.methods;  // never empty: core would compute every method
    ask.steps = r.attribute.steps;
    ask.faithfulness = r.attribute.faithfulness;
    ask.controls = attn::model::run_controls(r.scene);
    ask.position = attn::model::fill_mask_position(folder.model->info(), *folder.tokenizer, ids);
    const attn::attrib::AttributionResult res =
        attn::attrib::attribute_tokens(*folder.model, ids, ask);
    const auto array = [&](const std::string& name) -> const attn::attrib::NamedArray& {
        for (const attn::attrib::NamedArray& a : res.arrays)
            if (a.name == name) return a;
        throw attn::ArgumentError("the attribution wrote no " + name);  // core's contract broke
    };
    const auto scores = [&](const std::string& name) {
        for (const auto& [n, v] : res.token_scores)
            if (n == name) return std::vector<float>(v.begin(), v.end());
        throw attn::ArgumentError("the attribution ranked no " + name);
    };
    const auto floats = [](const std::vector<float>& v) { return f32Value(v.data(), v.size()); };
    const auto doubles = [](const std::vector<float>& v) {
        return f64Value(std::vector<double>(v.begin(), v.end()));
    };
    const std::vector<std::string> names = agreementNames(r.attribute);
    e.values = {
        textValue(text.toStdString()),          textValue(answer),      i32Value(ids),
        i32Value({std::int32_t(res.position)}), i32Value({res.target}), f64Value({res.logit})};
    for (const std::string& m : names)
        e.values.push_back(floats(scores(m)));
    if (std::find(names.begin(), names.end(), "integrated_gradients") != names.end())
        e.values.push_back(doubles(array("ig_delta").values));
    for (const std::string& m : names)
        e.values.push_back(doubles(array("faith_" + m).values));
    e.values.push_back(doubles(array("agreement").values));
}

}  // namespace

Entry runLine(const Runner& runner, const QByteArray& line, std::int64_t number) {
    Entry e;
    e.line = number;
    try {
        QJsonParseError error{};
        const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
        if (error.error != QJsonParseError::NoError)
            throw BadLine{"not valid JSON (" + error.errorString().toStdString() + " at column " +
                          std::to_string(error.offset + 1) + ")"};
        if (!doc.isObject()) throw BadLine{"not a JSON object"};
        const QJsonObject o = doc.object();
        switch (runner.analysis) {
            case Analysis::Patch:
                patchLine(runner, o, e);
                break;
            case Analysis::Ablate:
                ablateLine(runner, o, e);
                break;
            case Analysis::Census:
                censusLine(runner, o, e);
                break;
            case Analysis::Compute:
                computeLine(runner, o, e);
                break;
            case Analysis::Attribute:
                attributeLine(runner, o, e);
                break;
        }
    } catch (const BadLine& bad) {
        e.skipped = true, e.reason = bad.why, e.values.clear();
    } catch (const attn::ArgumentError& bad) {  // the analysis's own refusal of this example
        e.skipped = true, e.reason = bad.what(), e.values.clear();
    }
    return e;
}

}  // namespace cli::batch
