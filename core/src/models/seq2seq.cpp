// AttnScope core — the encoder–decoder driver: the encoder pass, the cached decoder steps and
// the teacher-forced run, written once for every family. GPL-3.0-or-later.
#include "attn/models/seq2seq.hpp"

#include <cmath>

#include "attn/models/seq2seq_description.hpp"
#include "attn/util/error.hpp"

namespace attn::model {

Seq2SeqDescription Seq2SeqModel::describe() const {
    throw ArgumentError(no_description(info().display));
}

float score_multiplier(const Seq2SeqInfo& info, const Seq2SeqControls& controls) {
    return controls.scale.value_or(info.scales_scores) ? 1.f / std::sqrt(float(info.head_dim))
                                                       : 1.f;
}

HeadStep head_step(const Seq2SeqInfo& info, const Seq2SeqControls& controls, Seq2SeqPart part,
                   int l) {
    HeadStep s{score_multiplier(info, controls), {}};
    for (const Seq2SeqHead& h : controls.ablate)
        if (h.part == part && h.layer == l) {
            s.ablated.resize(std::size_t(info.heads), 0);
            s.ablated[std::size_t(h.head)] = 1;
        }
    return s;
}

void check_heads(const Seq2SeqInfo& info, const Seq2SeqControls& controls) {
    for (const Seq2SeqHead& h : controls.ablate) {
        const bool encoder = h.part == Seq2SeqPart::Encoder;
        const int layers = encoder ? info.encoder_layers : info.decoder_layers;
        if (h.layer < 0 || h.layer >= layers || h.head < 0 || h.head >= info.heads)
            throw ArgumentError("head " + std::to_string(h.layer) + "." + std::to_string(h.head) +
                                " is not in the model: the " + (encoder ? "encoder" : "decoder") +
                                " has " + std::to_string(layers) + " layers of " +
                                std::to_string(info.heads) + " heads");
    }
}

Matrix encode(const Seq2SeqModel& model, const std::vector<std::int32_t>& ids,
              const Seq2SeqControls& controls, LayerWeights* encoder_weights) {
    if (ids.empty()) throw ArgumentError("the source has no tokens");
    const Seq2SeqInfo& info = model.info();
    check_heads(info, controls);
    Matrix x = model.embed_source(ids);
    if (encoder_weights) encoder_weights->assign(std::size_t(info.encoder_layers), {});
    for (int l = 0; l < info.encoder_layers; ++l)
        model.encoder_layer(l, x, head_step(info, controls, Seq2SeqPart::Encoder, l),
                            encoder_weights ? &(*encoder_weights)[std::size_t(l)] : nullptr);
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
              const Seq2SeqControls& controls, LayerWeights* self_w, LayerWeights* cross_w) {
    if (ids.empty()) throw ArgumentError("the target has no tokens");
    const Seq2SeqInfo& info = model.info();
    check_heads(info, controls);
    Matrix x = model.embed_target(ids, cache.length);
    if (self_w) self_w->assign(std::size_t(info.decoder_layers), {});
    if (cross_w) cross_w->assign(std::size_t(info.decoder_layers), {});
    for (int l = 0; l < info.decoder_layers; ++l) {
        const std::size_t i = std::size_t(l);
        model.decoder_layer(l, x, cache.length, cache.self[i], cache.cross[i],
                            head_step(info, controls, Seq2SeqPart::Decoder, l),
                            head_step(info, controls, Seq2SeqPart::Cross, l),
                            self_w ? &(*self_w)[i] : nullptr, cross_w ? &(*cross_w)[i] : nullptr);
    }
    cache.length += Index(ids.size());
    return model.logits(x);
}

Seq2SeqRun teacher_forced(const Seq2SeqModel& model, const std::vector<std::int32_t>& source,
                          const std::vector<std::int32_t>& target,
                          const Seq2SeqControls& controls) {
    Seq2SeqRun r;
    r.source = source;
    r.target = target;
    const Matrix encoded = encode(model, source, controls, &r.encoder);
    DecoderCache cache = start_decoder(model, encoded);
    r.logits = decode(model, target, cache, controls, &r.decoder, &r.cross);
    return r;
}

}  // namespace attn::model
