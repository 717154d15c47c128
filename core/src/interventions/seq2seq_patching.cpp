// AttnScope core — activation patching of an encoder–decoder. GPL-3.0-or-later.
#include "attn/interventions/seq2seq_patching.hpp"

#include <cmath>
#include <string>

#include "attn/interventions/capture.hpp"
#include "attn/util/error.hpp"
#include "patch_span.hpp"
#include "seq2seq_sites.hpp"

namespace attn::interv {

namespace {

using model::Component;

int layers_of(const model::Seq2SeqInfo& info, Component part) {
    return part == Component::Encoder ? info.encoder_layers : info.decoder_layers;
}

/// CaptureHooks sized for PART's layers.
CaptureHooks capture_of(const model::Seq2SeqInfo& info, Component part) {
    model::ModelInfo sized;
    sized.layers = layers_of(info, part);
    sized.heads = info.heads;
    return CaptureHooks(sized);
}

/// HOOK placed at PART's slot.
model::Seq2SeqHooks at_part(Component part, model::Hooks* hook) {
    model::Seq2SeqHooks h;
    s2s::of_part(part, h.encoder, h.decoder, h.cross) = hook;
    return h;
}

/// The last target row's logits of a run of SOURCE (or the encoder's output ENCODED, when
/// given) and TARGET with HOOKS.
Vector last_logits(const model::Seq2SeqModel& model, const std::vector<std::int32_t>& source,
                   const Matrix* encoded, const std::vector<std::int32_t>& target,
                   const model::Seq2SeqControls& controls, const model::Seq2SeqHooks& hooks) {
    const Matrix own = encoded ? Matrix() : model::encode(model, source, controls, nullptr, &hooks);
    model::DecoderCache cache = model::start_decoder(model, encoded ? *encoded : own);
    const Matrix logits = model::decode(model, target, cache, controls, nullptr, nullptr, &hooks);
    return logits.row(logits.rows() - 1).transpose();
}

void check_equal(std::size_t clean, std::size_t corrupt, const char* what) {
    if (clean != corrupt)
        throw ArgumentError("the clean " + std::string(what) + " has " + std::to_string(clean) +
                            " tokens and the corrupted one " + std::to_string(corrupt) +
                            ": patching needs " + what + "s of equal token length");
}

}  // namespace

Seq2SeqPatchResult seq2seq_patch(const model::Seq2SeqModel& model, const Seq2SeqPatchSpec& spec,
                                 Progress* progress) {
    const model::Seq2SeqInfo& info = model.info();
    check_equal(spec.clean_source.size(), spec.corrupt_source.size(), "source");
    check_equal(spec.clean_target.size(), spec.corrupt_target.size(), "target");
    for (const std::int32_t t : {spec.answer, spec.wrong})
        if (t < 0 || t >= info.vocab)
            throw ArgumentError("answer token " + std::to_string(t) +
                                " is outside the vocabulary of " + std::to_string(info.vocab));
    const Index sites = s2s::seq2seq_sites(info);
    report(progress, 0.0);
    CaptureHooks enc = capture_of(info, Component::Encoder),
                 dec = capture_of(info, Component::Decoder),
                 crs = capture_of(info, Component::Cross);
    const model::Seq2SeqHooks capture{&enc, &dec, &crs};
    const Vector clean =
        last_logits(model, spec.clean_source, nullptr, spec.clean_target, spec.controls, capture);
    report(progress, 1.0 / double(sites + 2));
    // The corrupted encoder's output, shared by every decoder and cross patch.
    const Matrix encoded = model::encode(model, spec.corrupt_source, spec.controls);
    const Vector corrupt =
        last_logits(model, spec.corrupt_source, &encoded, spec.corrupt_target, spec.controls, {});
    report(progress, 2.0 / double(sites + 2));
    Seq2SeqPatchResult r;
    const auto diff = [&](const Vector& v) {
        return double(v[spec.answer]) - double(v[spec.wrong]);
    };
    r.clean_diff = diff(clean);
    r.corrupt_diff = diff(corrupt);
    r.logit_scale = logit_spread(clean);
    const double span = restorable_span(r.clean_diff, r.corrupt_diff);
    s2s::each_head(info, r.encoder, r.decoder, r.cross, 2, progress, [&](const model::Site& site) {
        const CaptureHooks& source = s2s::of_part(site.component, enc, dec, crs);
        HeadPatch hook(site.layer, site.head, source.z_of(site.layer, site.head));
        const Vector v = last_logits(
            model, spec.corrupt_source, site.component == Component::Encoder ? nullptr : &encoded,
            spec.corrupt_target, spec.controls, at_part(site.component, &hook));
        s2s::of_part(site.component, r.encoder, r.decoder, r.cross)(site.layer, site.head) =
            float((diff(v) - r.corrupt_diff) / span);
    });
    return r;
}

}  // namespace attn::interv
