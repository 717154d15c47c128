// AttnScope — exact comparison of scene specs (undo must restore a scene exactly).
// GPL-3.0-or-later.
#pragma once

#include "attn/scene.hpp"

/// True when every parameter of the two specs is identical (matrices compared element-wise,
/// loaded data compared by identity: it is immutable and shared).
bool specsEqual(const attn::SceneSpec& a, const attn::SceneSpec& b);
