// AttnScope core — ablation and knockout as hooks (internal). GPL-3.0-or-later.
#pragma once

#include "attn/models/hooks.hpp"
#include "attn/models/model.hpp"

namespace attn::model {

/// Throws ArgumentError naming the first ablated head or knockout outside the model (a site of
/// another component than kSingleStack among them: a model of one stack has none).
void check_interventions(const ModelInfo& info, const Interventions& interventions);

/// The controls' interventions, applied at the hook points of every family: the sites of
/// STACK (the component these hooks are called for), others left to their own stack's hooks.
class InterventionHooks : public Hooks {
  public:
    explicit InterventionHooks(const Interventions& interventions, Component stack = kSingleStack)
        : iv_(interventions), stack_(stack) {}
    void pattern(int layer, int head, Matrix& weights) override;
    void z(int layer, int head, Index first, Matrix& z) override;

  private:
    const Interventions& iv_;
    Component stack_;
};

}  // namespace attn::model
