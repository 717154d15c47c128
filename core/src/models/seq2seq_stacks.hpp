// AttnScope core — an encoder–decoder's two stacks as a description: the wiring Marian and T5
// share (self-attention, then the decoder's cross-attention, then the feed-forward).
// GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/models/layer_description.hpp"
#include "attn/models/seq2seq_description.hpp"
#include "seq2seq_attention.hpp"

namespace attn::model {

/// ENC's and DEC's layers into D: each wired as RESIDUAL says, NORM(n) the NormOp of each of
/// its norms, MLP(ffn) its feed-forward's MlpOp, attention over HEADS heads of HEAD_DIM (no
/// grouping); a decoder layer's cross-attention after its cross_norm. Encoder layers hold att,
/// att_norm, ffn_norm, ffn; decoder layers self, self_norm, cross, cross_norm, ffn_norm, ffn.
template <class Enc, class Dec, class Norm, class Mlp>
void describe_stacks(Seq2SeqDescription& d, const std::vector<Enc>& enc,
                     const std::vector<Dec>& dec, blocks::Residual residual, int heads,
                     int head_dim, const Norm& norm, const Mlp& mlp) {
    const auto attention = [&](const AttentionProjections& p) {
        return grouped_attention(p.q, p.k, p.v, p.o, heads, heads, head_dim);
    };
    const auto layer = [&](const AttentionProjections& self, const auto& self_norm,
                           const auto& ffn_norm, const auto& ffn) {
        Seq2SeqLayerDescription l;
        l.block.residual = residual;
        l.block.norm1 = norm(self_norm);
        l.block.norm2 = norm(ffn_norm);
        l.block.attention = attention(self);
        l.block.mlp = mlp(ffn);
        return l;
    };
    for (const Enc& L : enc)
        d.encoder.push_back(layer(L.att, L.att_norm, L.ffn_norm, L.ffn));
    for (const Dec& L : dec) {
        d.decoder.push_back(layer(L.self, L.self_norm, L.ffn_norm, L.ffn));
        d.decoder.back().cross_norm = norm(L.cross_norm);
        d.decoder.back().cross = attention(L.cross);
    }
}

}  // namespace attn::model
