// AttnScope core — ablation and knockout as hooks (internal). GPL-3.0-or-later.
#pragma once

#include "attn/models/hooks.hpp"
#include "attn/models/model.hpp"

namespace attn::model {

/// Throws ArgumentError naming the first ablated head or knockout outside the model.
void check_interventions(const ModelInfo& info, const Interventions& interventions);

/// The controls' interventions, applied at the hook points of every family.
class InterventionHooks : public Hooks {
  public:
    explicit InterventionHooks(const Interventions& interventions) : iv_(interventions) {}
    void pattern(int layer, int head, Matrix& weights) override;
    void z(int layer, int head, Index first, Matrix& z) override;

  private:
    const Interventions& iv_;
};

}  // namespace attn::model
