// AttnScope core — the encoder–decoder driver: the encoder pass, the cached decoder steps and
// the teacher-forced run, written once for every family. GPL-3.0-or-later.
#include "attn/models/seq2seq.hpp"

#include <algorithm>
#include <cmath>

#include "attn/models/seq2seq_description.hpp"
#include "attn/models/seq2seq_scaling.hpp"
#include "attn/util/error.hpp"
#include "interventions_hooks.hpp"

namespace attn::model {

namespace {

/// The controls' mean ablations and knockouts of PART's heads, applied by the decoder-only
/// families' own hooks (InterventionHooks of PART), then the caller's hooks of PART.
class PartHooks {
  public:
    PartHooks(const Seq2SeqControls& c, Component part, Hooks* caller) : own_(iv_, part) {
        iv_.ablation = c.ablation;
        if (c.ablation == AblationMode::Mean)  // zero ablation: HeadStep's ablated
            for (const Site& h : c.ablate)
                if (h.component == part) iv_.ablated.push_back(h);
        for (const Knockout& k : c.knockouts)
            if (k.site.component == part) iv_.knockouts.push_back(k);
        std::sort(iv_.ablated.begin(), iv_.ablated.end());
        iv_.ablated.erase(std::unique(iv_.ablated.begin(), iv_.ablated.end()), iv_.ablated.end());
        if (!iv_.empty()) chain_.add(&own_);
        chain_.add(caller);
    }
    PartHooks(const PartHooks&) = delete;
    PartHooks& operator=(const PartHooks&) = delete;
    /// The hooks to call, or null when there are none.
    Hooks* get() { return chain_.empty() ? nullptr : &chain_; }
    /// HeadStep of layer L with these hooks.
    HeadStep step(const Seq2SeqInfo& info, const Seq2SeqControls& c, Component part, int l) {
        HeadStep s = head_step(info, c, part, l);
        s.hooks = get();
        s.layer = l;
        return s;
    }

  private:
    Interventions iv_;
    InterventionHooks own_;
    HookChain chain_;
};

}  // namespace

Seq2SeqDescription Seq2SeqModel::describe() const {
    throw ArgumentError(no_description(info().display));
}

bool scales_scores(const Seq2SeqInfo& info, const Seq2SeqControls& controls) {
    return controls.scale.value_or(info.scales_scores);
}

float score_multiplier(const Seq2SeqInfo& info, const Seq2SeqControls& controls) {
    return scales_scores(info, controls) ? 1.f / std::sqrt(float(info.head_dim)) : 1.f;
}

HeadStep head_step(const Seq2SeqInfo& info, const Seq2SeqControls& controls, Component component,
                   int l) {
    HeadStep s{score_multiplier(info, controls), {}};
    for (const Site& h : controls.ablate)
        if (controls.ablation == AblationMode::Zero && h.component == component && h.layer == l) {
            s.ablated.resize(std::size_t(info.heads), 0);
            s.ablated[std::size_t(h.head)] = 1;
        }
    return s;
}

void check_heads(const Seq2SeqInfo& info, const Seq2SeqControls& controls) {
    const auto check = [&](const Site& h, const std::string& what) {
        const bool encoder = h.component == Component::Encoder;
        const int layers = encoder ? info.encoder_layers : info.decoder_layers;
        if (h.layer < 0 || h.layer >= layers || h.head < 0 || h.head >= info.heads)
            throw ArgumentError(what + " " + component_name(h.component) + "." +
                                std::to_string(h.layer) + "." + std::to_string(h.head) +
                                " is not in the model: the " + (encoder ? "encoder" : "decoder") +
                                " has " + std::to_string(layers) + " layers of " +
                                std::to_string(info.heads) + " heads");
    };
    for (const Site& h : controls.ablate)
        check(h, "head");
    for (const Knockout& k : controls.knockouts) {
        check(k.site, "knockout");
        if (k.query < -1 || k.key < 0)
            throw ArgumentError("knockout " + std::string(component_name(k.site.component)) + "." +
                                std::to_string(k.site.layer) + "." + std::to_string(k.site.head) +
                                ": query " + std::to_string(k.query) + ", key " +
                                std::to_string(k.key) + " is not a position");
    }
}

Matrix encode(const Seq2SeqModel& model, const std::vector<std::int32_t>& ids,
              const Seq2SeqControls& controls, LayerWeights* encoder_weights,
              const Seq2SeqHooks* hooks) {
    if (ids.empty()) throw ArgumentError("the source has no tokens");
    const Seq2SeqInfo& info = model.info();
    check_heads(info, controls);
    Matrix x = model.embed_source(ids);
    if (encoder_weights) encoder_weights->assign(std::size_t(info.encoder_layers), {});
    PartHooks part(controls, Component::Encoder, hooks ? hooks->encoder : nullptr);
    for (int l = 0; l < info.encoder_layers; ++l) {
        if (Hooks* h = part.get()) h->resid_pre(l, 0, x);
        model.encoder_layer(l, x, part.step(info, controls, Component::Encoder, l),
                            encoder_weights ? &(*encoder_weights)[std::size_t(l)] : nullptr);
    }
    if (Hooks* h = part.get()) h->resid_final(0, x);
    model.encoder_end(x);
    return x;
}

DecoderCache start_decoder(const Seq2SeqModel& model, const Matrix& encoded) {
    DecoderCache c;
    const int layers = model.info().decoder_layers;
    c.self.resize(std::size_t(layers));
    for (int l = 0; l < layers; ++l)
        c.cross.push_back(model.cross_keys(l, encoded));
    c.source = encoded.rows();
    return c;
}

Matrix decode(const Seq2SeqModel& model, const std::vector<std::int32_t>& ids, DecoderCache& cache,
              const Seq2SeqControls& controls, LayerWeights* self_w, LayerWeights* cross_w,
              const Seq2SeqHooks* hooks) {
    if (ids.empty()) throw ArgumentError("the target has no tokens");
    const Seq2SeqInfo& info = model.info();
    check_heads(info, controls);
    // A knockout's query and a mean over positions are the whole target's: a cached step sees
    // only its own rows.
    const bool whole = !controls.knockouts.empty() ||
                       (controls.ablation == AblationMode::Mean && !controls.ablate.empty());
    if (whole && cache.length > 0)
        throw ArgumentError(
            "knockouts and mean ablation apply to a run of the whole target at once, not to a "
            "translation's cached steps");
    Matrix x = model.embed_target(ids, cache.length);
    if (self_w) self_w->assign(std::size_t(info.decoder_layers), {});
    if (cross_w) cross_w->assign(std::size_t(info.decoder_layers), {});
    PartHooks self(controls, Component::Decoder, hooks ? hooks->decoder : nullptr);
    PartHooks cross(controls, Component::Cross, hooks ? hooks->cross : nullptr);
    for (int l = 0; l < info.decoder_layers; ++l) {
        const std::size_t i = std::size_t(l);
        if (Hooks* h = self.get()) h->resid_pre(l, cache.length, x);
        model.decoder_layer(l, x, cache.length, cache.self[i], cache.cross[i],
                            self.step(info, controls, Component::Decoder, l),
                            cross.step(info, controls, Component::Cross, l),
                            self_w ? &(*self_w)[i] : nullptr, cross_w ? &(*cross_w)[i] : nullptr);
    }
    if (Hooks* h = self.get()) h->resid_final(cache.length, x);
    cache.length += Index(ids.size());
    return model.logits(x);
}

Seq2SeqRun teacher_forced(const Seq2SeqModel& model, const std::vector<std::int32_t>& source,
                          const std::vector<std::int32_t>& target, const Seq2SeqControls& controls,
                          const Seq2SeqHooks* hooks) {
    Seq2SeqRun r;
    r.source = source;
    r.target = target;
    const Matrix encoded = encode(model, source, controls, &r.encoder, hooks);
    DecoderCache cache = start_decoder(model, encoded);
    r.logits = decode(model, target, cache, controls, &r.decoder, &r.cross, hooks);
    return r;
}

}  // namespace attn::model
