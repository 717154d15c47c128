// AttnScope — edits of a SceneSpec that keep it valid (used by the controls and the CLI).
// GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/scene.hpp"

/// Divisors of d_model up to maxHeads: the head counts a d_model allows.
std::vector<int> headChoices(attn::Index d_model, int maxHeads = 16);

/// spec with d_model changed; heads (and kv_heads) move to the nearest allowed value.
attn::SceneSpec withDModel(attn::SceneSpec spec, attn::Index d_model);

/// Number of trailing keys hidden by a padding mask (0 when the mask is not Padding).
int trailingPadding(const attn::SceneSpec& spec);

/// spec whose padding flags hide the last `count` of its n keys.
attn::SceneSpec withPadding(attn::SceneSpec spec, int count);

/// spec with new text (explicit tokens dropped), keeping the number of padded keys.
attn::SceneSpec withText(attn::SceneSpec spec, const std::string& text);

/// Number of keys of spec (cross text tokens, else query tokens); 0 on invalid text.
int keyCount(const attn::SceneSpec& spec);
