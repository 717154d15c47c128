// AttnScope core — BERT's attention LayerNorm frozen at one row: the linear map ALTI splits the
// block's output through. GPL-3.0-or-later.
#include <cmath>

#include "attn/models/bert/model.hpp"
#include "attn/util/error.hpp"

namespace attn::bert {

model::Model::FrozenNorm Model::post_attention_norm(int l, const Matrix& u) const {
    if (l < 0 || l >= config_.layers || u.rows() != 1 || u.cols() != config_.hidden)
        throw ArgumentError("post_attention_norm: layer " + std::to_string(l) + " or a row of " +
                            std::to_string(u.cols()) + " values is not of this model");
    const Block& b = blocks_[std::size_t(l)];
    // As bert_layer_norm computes it: float mean and variance of the row.
    const auto row = u.row(0);
    const float mean = row.mean();
    const float var = (row.array() - mean).square().mean();
    FrozenNorm norm;
    norm.centre = true;
    norm.inv_scale = 1.f / std::sqrt(var + float(config_.layer_norm_eps));
    norm.gain = b.ln1_w.matrix().row(0).transpose();
    norm.bias = b.ln1_b.matrix().row(0).transpose();
    return norm;
}

}  // namespace attn::bert
