// AttnScope core — what a post-norm family (BERT) says about the norm after its attention block,
// for methods that split the block's output into per-token terms (ALTI). GPL-3.0-or-later.
#pragma once

#include "attn/models/model.hpp"

namespace attn::model {

/// A family that normalises after each block (ModelInfo::pre_norm false) implements this beside
/// Model, so that what is written against the model interface can reach that norm.
class PostNormBlocks {
  public:
    virtual ~PostNormBlocks() = default;
    /// Layer L's norm after the attention block, applied to U (1 × d_model: the block's input
    /// plus its output), frozen at U: norm(u) = gain ⊙ (u − centre·mean(u)) · inv_scale + bias.
    virtual Model::FrozenNorm post_attention_norm(int l, const Matrix& u) const = 0;
};

}  // namespace attn::model
