// AttnScope core — attention rollout across layers (Abnar & Zuidema, 2020). GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/scene/scene.hpp"
#include "attn/util/progress.hpp"
#include "attn/util/types.hpp"

namespace attn {

/// Mean of a layer's head weights (n × n), in double.
MatrixD mean_heads(const std::vector<HeadResult>& heads);

/// Rollout from per-layer head means: Â_l = 0.5·M_l + 0.5·I with rows renormalised to 1,
/// R_0 = Â_0 and R_l = Â_l · R_{l−1}. Returns R_0 … R_{L−1}; throws ShapeError unless every
/// M_l is the same square size.
std::vector<MatrixD> rollout(const std::vector<MatrixD>& layer_means);

/// Accumulates rollout one layer at a time (so the layers need not be kept).
class RolloutAccumulator {
  public:
    /// Adds the next layer's result; throws ArgumentError unless it is square self-attention.
    void add(const SceneResult& layer);
    /// R_0 … R_{L−1} of the layers added so far.
    const std::vector<MatrixD>& layers() const { return rolled_; }

  private:
    std::vector<MatrixD> rolled_;
};

/// Rollout of every layer of a scene (controls applied); throws ArgumentError unless it is
/// square self-attention, attn::Cancelled through progress.
std::vector<MatrixD> rollout(const SceneSpec& spec, Progress* progress = nullptr);

}  // namespace attn
