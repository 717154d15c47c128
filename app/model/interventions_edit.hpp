// AttnScope — ablating and restoring a model's heads as undoable scene edits.
// GPL-3.0-or-later.
#pragma once

#include <QString>

#include <vector>

#include "attn/models/hooks.hpp"
#include "attn/scene/scene.hpp"

class Scene;

/// True when head HEAD of layer LAYER is ablated in SPEC's model run.
bool isAblated(const attn::SceneSpec& spec, int layer, int head);

/// Ablates head LAYER.HEAD of the scene's model run, or restores it when ablated: one undo step
/// ("Ablate head 2.1" / "Restore head 2.1", layers and heads from 0 as the CLI's --ablate).
/// False (nothing changes) when the scene runs no model or the head is outside it.
bool toggleAblation(Scene& scene, int layer, int head);

/// The undo text of toggling LAYER.HEAD in SPEC.
QString ablationText(const attn::SceneSpec& spec, int layer, int head);

/// True when SPEC's model run knocks out EDGE (query −1: the key column).
bool isKnockedOut(const attn::SceneSpec& spec, const attn::model::Knockout& edge);

/// The undo text of toggling EDGE in SPEC: "Knock out 1.0:3>2" / "Restore 1.0:*>2" (the CLI's
/// --knockout syntax, layers and heads from 0).
QString knockoutText(const attn::SceneSpec& spec, const attn::model::Knockout& edge);

/// Knocks out EDGE in the scene's model run, or restores it: one undo step. False (nothing
/// changes) when the scene runs no model or the edge is outside it.
bool toggleKnockout(Scene& scene, const attn::model::Knockout& edge);

/// The edges SPEC's run knocks out in head HEAD of layer LAYER.
std::vector<attn::model::Knockout> knockoutsOf(const attn::SceneSpec& spec, int layer, int head);
