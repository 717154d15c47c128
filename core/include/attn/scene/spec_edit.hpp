// AttnScope core — edits of a SceneSpec that keep it valid (the controls and the CLI use them).
// GPL-3.0-or-later.
#pragma once

#include <string>
#include <vector>

#include "attn/scene/scene.hpp"

namespace attn {

/// Divisors of d_model up to max_heads: the head counts a d_model allows.
std::vector<int> head_choices(Index d_model, int max_heads = 16);

/// spec with d_model changed; heads (and kv_heads) move to the nearest allowed value.
SceneSpec with_d_model(SceneSpec spec, Index d_model);

/// Number of trailing keys hidden by a padding mask (0 when the mask is not Padding).
int trailing_padding(const SceneSpec& spec);

/// spec whose padding flags hide the last `count` of its n keys.
SceneSpec with_padding(SceneSpec spec, int count);

/// spec with new text (explicit tokens dropped), keeping the number of padded keys.
SceneSpec with_text(SceneSpec spec, const std::string& text);

/// spec without what belongs to its model run: the generated ids, the layers the controls apply
/// in, rotary positions and soft-capping off and every intervention (ablated heads, knocked-out
/// edges). Opening or closing a model, or a file over it, starts from this: another run never
/// inherits them.
SceneSpec without_run_state(SceneSpec spec);

/// Number of keys of spec (cross text tokens, else query tokens); 0 on invalid text.
int key_count(const SceneSpec& spec);

}  // namespace attn
