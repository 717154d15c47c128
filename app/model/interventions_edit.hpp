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

/// Ablates head LAYER.HEAD (from 0) of the scene's model run, or restores it when ablated: one
/// undo step ("Ablate layer 3, head 2" / "Restore layer 3, head 2", from 1 as every label).
/// False (nothing changes) when the scene runs no model or the head is outside it.
bool toggleAblation(Scene& scene, int layer, int head);

/// The undo text of toggling LAYER.HEAD in SPEC.
QString ablationText(const attn::SceneSpec& spec, int layer, int head);

/// True when SPEC's model run knocks out EDGE (query −1: the key column).
bool isKnockedOut(const attn::SceneSpec& spec, const attn::model::Knockout& edge);

/// The undo text of toggling EDGE in SPEC: "Knock out query 4 → key 3 in layer 2, head 1" /
/// "Restore key 3 in layer 2, head 1" (every query), from 1 as every label.
QString knockoutText(const attn::SceneSpec& spec, const attn::model::Knockout& edge);

/// The command line's spelling of EDGE, from 0: "--knockout 1.0:3>2".
QString cliSpelling(const attn::model::Knockout& edge);
/// The command line's spelling of ablating HEAD, from 0: "--ablate 1.0".
QString cliSpelling(const attn::model::Site& head);

/// Knocks out EDGE in the scene's model run, or restores it: one undo step. False (nothing
/// changes) when the scene runs no model or the edge is outside it.
bool toggleKnockout(Scene& scene, const attn::model::Knockout& edge);

/// The edges SPEC's run knocks out in head HEAD of layer LAYER.
std::vector<attn::model::Knockout> knockoutsOf(const attn::SceneSpec& spec, int layer, int head);
