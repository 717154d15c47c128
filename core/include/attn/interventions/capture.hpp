// AttnScope core — hooks that keep what a run computed: each head's z, each block's output.
// GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/models/hooks.hpp"
#include "attn/models/model.hpp"

namespace attn::interv {

/// Keeps every head's z (after the run's own interventions) and every attention and MLP block's
/// output, rows [first, n) as the hooks see them (a run without a reused prefix: every row).
class CaptureHooks : public model::Hooks {
  public:
    /// Sized for INFO's layers and heads.
    explicit CaptureHooks(const model::ModelInfo& info);
    void z(int layer, int head, Index first, Matrix& z) override;
    void attn_out(int layer, Index first, const Matrix& out) override;
    void mlp_out(int layer, Index first, const Matrix& out) override;
    /// Head H of layer L's z (rows × head_dim).
    const Matrix& z_of(int l, int h) const { return z_[std::size_t(l * heads_ + h)]; }
    /// Layer L's attention block output (rows × d_model).
    const Matrix& attn_of(int l) const { return attn_[std::size_t(l)]; }
    /// Layer L's MLP block output (rows × d_model).
    const Matrix& mlp_of(int l) const { return mlp_[std::size_t(l)]; }

  private:
    int heads_;
    std::vector<Matrix> z_, attn_, mlp_;
};

}  // namespace attn::interv
