// AttnScope core — every head of an encoder–decoder numbered once: the encoder's heads, then
// the decoder's, then the cross-attention's, layer by layer (internal). GPL-3.0-or-later.
#pragma once

#include "../util/parallel.hpp"
#include "attn/models/seq2seq.hpp"
#include "attn/util/progress.hpp"

namespace attn::interv::s2s {

/// How many heads the three attentions of INFO have together.
inline Index seq2seq_sites(const model::Seq2SeqInfo& info) {
    return Index(info.encoder_layers + 2 * info.decoder_layers) * info.heads;
}

/// Head K of the numbering.
inline model::Site seq2seq_site(const model::Seq2SeqInfo& info, Index k) {
    using model::Component;
    const Index H = info.heads, enc = Index(info.encoder_layers) * H,
                dec = Index(info.decoder_layers) * H;
    const Component part = k < enc         ? Component::Encoder
                           : k < enc + dec ? Component::Decoder
                                           : Component::Cross;
    const Index i = part == Component::Encoder   ? k
                    : part == Component::Decoder ? k - enc
                                                 : k - enc - dec;
    return {part, int(i / H), int(i % H)};
}

/// ENCODER, DECODER or CROSS as PART says.
template <class T>
T& of_part(model::Component part, T& encoder, T& decoder, T& cross) {
    return part == model::Component::Encoder   ? encoder
           : part == model::Component::Decoder ? decoder
                                               : cross;
}

/// Sizes ENCODER, DECODER and CROSS [layers, heads], then runs TASK(head) for every head on
/// every core; PROGRESS is told (finished + DONE) / (heads + DONE) after each, DONE being the
/// runs made before.
template <class M, class Task>
void each_head(const model::Seq2SeqInfo& info, M& encoder, M& decoder, M& cross, int done,
               Progress* progress, Task task) {
    encoder.resize(info.encoder_layers, info.heads);
    decoder.resize(info.decoder_layers, info.heads);
    cross.resize(info.decoder_layers, info.heads);
    const Index n = seq2seq_sites(info);
    detail::run_tasks(
        n, [&](Index k) { task(seq2seq_site(info, k)); },
        [&](Index finished) { report(progress, double(finished + done) / double(n + done)); });
}

}  // namespace attn::interv::s2s
