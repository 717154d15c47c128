// AttnScope — the Influence tab on an encoder–decoder's run. GPL-3.0-or-later.
#include "model/seq2seq_influence.hpp"

#include <limits>

#include "attn/interventions/lens.hpp"
#include "attn/util/error.hpp"
#include "model/scene.hpp"

Seq2SeqShown* Seq2SeqShown::of(Scene* scene) {
    if (auto* s = scene->findChild<Seq2SeqShown*>(QString(), Qt::FindDirectChildrenOnly)) return s;
    return new Seq2SeqShown(scene);
}

Seq2SeqShown::Seq2SeqShown(Scene* scene) : QObject(scene) {}

void Seq2SeqShown::set(Run run) {
    constexpr std::size_t kKept = 16;
    if (runs_.size() == kKept) runs_.erase(runs_.begin());
    runs_.push_back(std::move(run));
}

const Seq2SeqShown::Run* Seq2SeqShown::matching(const attn::SceneSpec& spec) const {
    if (!spec.is_loaded()) return nullptr;
    // The run whose attention the spec loads: the same data, not an equal copy.
    for (const Run& r : runs_) {
        const bool same = r.data.get() == spec.data.get();
        if (same) return &r;
    }
    return nullptr;
}

namespace influence {
namespace {

using attn::model::Component;

const attn::attrib::NamedArray* arrayOf(const attn::attrib::AttributionResult& r,
                                        const std::string& name) {
    for (const attn::attrib::NamedArray& a : r.arrays)
        if (a.name == name) return &a;
    return nullptr;
}

/// The source's values, then the target's, of the method KEY.
std::vector<double> bothSides(const attn::attrib::AttributionResult& r, const QString& key) {
    std::vector<double> out;
    for (const char* side : {"source_", "target_"})
        if (const auto* a = arrayOf(r, side + key.toStdString()))
            out.insert(out.end(), a->values.begin(), a->values.end());
    return out;
}

}  // namespace

Seq2SeqNumbers computeSeq2Seq(const Seq2SeqShown::Run& run, const Target& target, int steps,
                              attn::Progress* progress) {
    const attn::model::Seq2SeqModel& model = *run.folder->model;
    const attn::Index ns = attn::Index(run.source.size());
    Seq2SeqNumbers n;
    attn::attrib::Seq2SeqAttributionRequest ask;
    if (target.position) {
        if (*target.position < ns)
            throw attn::ArgumentError("a source token is not predicted: pick a target token");
        ask.position = *target.position - ns;
    }
    ask.target = target.token;
    ask.steps = steps;
    ask.controls = run.input.options.controls;
    n.run = attn::model::teacher_forced(model, run.source, run.target, run.input.options.controls);
    attn::PartProgress part(progress, 0.05, 1.0);
    n.core = attn::attrib::attribute_seq2seq(model, run.source, run.target, ask, &part);
    const attn::model::Seq2SeqInfo& info = model.info();
    n.encoderLayers = info.encoder_layers;
    n.decoderLayers = info.decoder_layers;
    n.heads = info.heads;
    n.steps = steps;
    for (const std::string& t : run.folder->source->display_tokens(run.source))
        n.source << drawable(t);
    for (const std::string& t : run.folder->target->display_tokens(run.target))
        n.target << drawable(t);
    n.targetText = drawable(run.folder->target->token_text(n.core.target));
    for (attn::Index i = 0; i < n.run.logits.rows(); ++i) {
        const attn::interv::LensCell cell =
            attn::interv::top_tokens(attn::Vector(n.run.logits.row(i).transpose()));
        n.topIds.push_back(cell.ids);
        n.topProbabilities.push_back(cell.probabilities);
        QStringList texts;
        for (std::int32_t id : cell.ids)
            texts << drawable(run.folder->target->token_text(id));
        n.topTexts.push_back(texts);
    }
    return n;
}

Result seq2seqResult(const Seq2SeqNumbers& n, Component part) {
    Result r;
    const int ns = int(n.source.size()), nt = int(n.target.size());
    r.tokens = n.source + n.target;
    r.sourceTokens = ns;
    r.ids.assign(std::size_t(ns + nt), 0);
    r.position = ns + n.core.position;
    r.target = n.core.target;
    r.targetText = n.targetText;
    r.logit = n.core.logit;
    r.causal = true;
    r.steps = n.steps;
    // The source is not predicted: its columns of the picker stay empty.
    r.topIds.assign(std::size_t(ns), {});
    r.topProbabilities.assign(std::size_t(ns), {});
    r.topTexts.assign(std::size_t(ns), QStringList());
    r.topIds.insert(r.topIds.end(), n.topIds.begin(), n.topIds.end());
    r.topProbabilities.insert(r.topProbabilities.end(), n.topProbabilities.begin(),
                              n.topProbabilities.end());
    r.topTexts.insert(r.topTexts.end(), n.topTexts.begin(), n.topTexts.end());
    const QString refusal = QObject::tr(
        "not defined for an encoder–decoder (its two stacks are no one chain of layers over "
        "the same tokens; docs/attribution.md)");
    for (const QString& key : methodKeys()) {
        Strip s{key, bothSides(n.core, key), {}};
        if (s.values.empty())
            s.refusal = key == QLatin1StringView("norm_based")
                            ? QObject::tr(
                                  "per head only on an encoder–decoder: pick a part "
                                  "under “Per head”, or attnscope attribute's "
                                  "encoder_/decoder_/cross_norm_based")
                            : refusal;
        r.strips.push_back(std::move(s));
    }
    if (const auto* delta = arrayOf(n.core, "ig_delta")) r.igDelta = delta->values[0];
    const bool encoder = part == Component::Encoder;
    r.layers = encoder ? n.encoderLayers : n.decoderLayers;
    r.heads = n.heads;
    r.queryTokens = encoder ? n.source : n.target;
    r.keyTokens = part == Component::Decoder ? n.target : n.source;
    const std::string name =
        std::string(attn::model::component_name(part)) + "_attention_x_gradient";
    if (const auto* a = arrayOf(n.core, name)) {
        const attn::Index rows = attn::Index(a->shape[2]), cols = attn::Index(a->shape[3]);
        for (std::size_t m = 0; m < std::size_t(r.layers * r.heads); ++m)
            r.attentionXGradient.push_back(Eigen::Map<const attn::Matrix>(
                a->values.data() + m * std::size_t(rows * cols), rows, cols));
    }
    // The selected head's attention row at P over the tokens it reads (the encoder has no row
    // at a target position).
    if (!encoder) {
        const attn::model::LayerWeights& w =
            part == Component::Decoder ? n.run.decoder : n.run.cross;
        const int offset = part == Component::Decoder ? ns : 0;
        // The tokens the part does not read: no value (an empty cell), not a zero weight.
        r.attentionRows = attn::Matrix::Constant(attn::Index(r.layers) * r.heads, ns + nt,
                                                 std::numeric_limits<float>::quiet_NaN());
        for (int l = 0; l < r.layers; ++l)
            for (int h = 0; h < r.heads; ++h) {
                const attn::Matrix& m = w[std::size_t(l)][std::size_t(h)];
                r.attentionRows.row(attn::Index(l) * r.heads + h).segment(offset, m.cols()) =
                    m.row(n.core.position);
            }
    }
    return r;
}

}  // namespace influence
