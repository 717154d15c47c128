// AttnScope — what a model run changes from the model's own: the note every result carries.
// GPL-3.0-or-later.
#pragma once

#include <QString>

#include "attn/scene/scene.hpp"

/// The controls and interventions in which SPEC's model run differs from the model as trained,
/// e.g. "τ = 0.50 · unscaled · 1 head ablated" ("" for the model's own run, or no model).
QString runChanges(const attn::SceneSpec& spec);
