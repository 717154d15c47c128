// AttnScope core — what families read the same way: a projection's tensors, an untied output
// head, the final norm frozen as the model interface gives it. GPL-3.0-or-later.
#pragma once

#include <string>

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
