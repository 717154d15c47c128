// AttnScope core — what families read the same way: a projection's tensors, an untied output
// head, the final norm frozen as the model interface gives it. GPL-3.0-or-later.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/blocks/norms.hpp"
#include "attn/blocks/projections.hpp"
#include "attn/models/model.hpp"
#include "attn/util/error.hpp"
#include "attn/weights/weights.hpp"

namespace attn::model {

/// NAME.weight [OUT, IN] and, with BIAS, NAME.bias [OUT] of W (errors as Weights::get).
inline blocks::TensorLinear read_linear(const Weights& w, const std::string& name, Index out,
                                        Index in, bool bias) {
    blocks::TensorLinear lin{w.get(name + ".weight", out, in), {}, bias};
    if (bias) lin.b = w.get(name + ".bias", 1, out);
    return lin;
}

/// The untied output head NAME [VOCAB, D] of W; refused naming the folder when it is missing
/// (WHAT: what such a folder probably is).
inline FloatTensor read_output_head(const Weights& w, const std::string& name, Index vocab, Index d,
                                    const std::string& what) {
    if (!w.find(name))
        throw FormatError(w.dir() + ": tie_word_embeddings is false but there is no " + name +
                          " (" + what + ")");
    return w.get(name, vocab, d);
}

/// Head H's output Z (rows × HEAD_DIM) through its columns of the output projection O
/// ([d, heads · head_dim]), without bias: what the residual stream receives from the head.
inline Matrix head_through(const blocks::TensorLinear& o, Index h, Index head_dim,
                           const Matrix& z) {
    return z * o.w.block(0, h * head_dim, o.w.rows(), head_dim).transpose();
}

/// O's bias, or zeros of its D outputs when it has none.
inline Vector bias_or_zero(const blocks::TensorLinear& o, Index d) {
    return o.has_bias ? Vector(o.b.matrix().row(0).transpose()) : Vector::Zero(d);
}

/// INFO's sizes from C, a rotary decoder's config (layers, heads, kv_heads, hidden, head_dim,
/// vocab, max_positions), and what W's files hold (their type and bytes).
template <class C>
void set_decoder_info(ModelInfo& info, const C& c, const Weights& w) {
    info.layers = c.layers;
    info.heads = c.heads;
    info.kv_heads = c.kv_heads;
    info.head_dim = c.head_dim;
    info.dtype = w.dtype();
    info.d_model = c.hidden;
    info.vocab = c.vocab;
    info.max_positions = c.max_positions;
    info.file_bytes = w.file_bytes();
    info.rotary = true;
}

/// The widths of a rotary decoder's tensors, from its config C.
struct DecoderWidths {
    Index d = 0;    ///< d_model
    Index hd = 0;   ///< a head's
    Index qd = 0;   ///< the queries' (heads · head_dim)
    Index kvd = 0;  ///< the keys' and values' (kv_heads · head_dim)
    Index ff = 0;   ///< the feed-forward's inner width
};

template <class C>
DecoderWidths decoder_widths(const C& c) {
    const Index hd = c.head_dim;
    return {c.hidden, hd, Index(c.heads) * hd, Index(c.kv_heads) * hd, c.intermediate};
}

/// A Hugging Face decoder's tensors under P ("model.", or none): the token embedding and final
/// norm into EMBED and NORM, then each layer's Block, READ(its prefix "P layers.l.", block),
/// into BLOCKS; in that order, so the first tensor missing is the one named.
template <class C, class Block, class Read>
void read_decoder_tensors(const Weights& w, const C& c, const std::string& p, FloatTensor& embed,
                          FloatTensor& norm, std::vector<Block>& blocks, const Read& read) {
    embed = w.get(p + "embed_tokens.weight", c.vocab, c.hidden);
    norm = w.get(p + "norm.weight", 1, c.hidden);
    for (int l = 0; l < c.layers; ++l) {
        Block blk;
        read(p + "layers." + std::to_string(l) + ".", blk);
        blocks.push_back(std::move(blk));
    }
}

/// Layer prefix B's separate self_attn.q_proj, k_proj and v_proj (biases when BIAS) into BLK.
template <class Block>
void read_qkv(const Weights& w, const std::string& b, const DecoderWidths& n, bool bias,
              Block& blk) {
    blk.q = read_linear(w, b + "self_attn.q_proj", n.qd, n.d, bias);
    blk.k = read_linear(w, b + "self_attn.k_proj", n.kvd, n.d, bias);
    blk.v = read_linear(w, b + "self_attn.v_proj", n.kvd, n.d, bias);
}

/// The output vector of TOKEN: its row of the token embedding EMBED when TIED, else of the
/// output head HEAD; *BIAS (when asked) 0, as these heads have none.
inline Vector tied_head_row(bool tied, const FloatTensor& embed, const FloatTensor& head,
                            std::int32_t token, float* bias) {
    if (bias) *bias = 0.f;
    return (tied ? embed : head).row(token);
}

/// F (frozen at a single row) as Model::FrozenNorm; no bias: zeros of the row's width.
inline Model::FrozenNorm frozen_final_norm(const blocks::FrozenNorm<float>& f) {
    Model::FrozenNorm out;
    out.centre = f.centre;
    out.inv_scale = f.inv_scale(0);
    out.gain = f.gain.transpose();
    out.bias = f.bias.size() ? Vector(f.bias.transpose()) : Vector::Zero(f.gain.size());
    return out;
}

}  // namespace attn::model
