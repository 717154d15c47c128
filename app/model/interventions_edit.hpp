// AttnScope — ablating and restoring a model's heads as undoable scene edits.
// GPL-3.0-or-later.
#pragma once

#include <QString>

#include "attn/scene.hpp"

class Scene;

/// True when head HEAD of layer LAYER is ablated in SPEC's model run.
bool isAblated(const attn::SceneSpec& spec, int layer, int head);

/// Ablates head LAYER.HEAD of the scene's model run, or restores it when ablated: one undo step
/// ("Ablate head 2.1" / "Restore head 2.1", layers and heads from 0 as the CLI's --ablate).
/// False (nothing changes) when the scene runs no model or the head is outside it.
bool toggleAblation(Scene& scene, int layer, int head);

/// The undo text of toggling LAYER.HEAD in SPEC.
QString ablationText(const attn::SceneSpec& spec, int layer, int head);
