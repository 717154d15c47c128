// AttnScope — the handle every view draws from: a computed scene. GPL-3.0-or-later.
#pragma once

#include <memory>

#include "attn/scene/scene.hpp"

/// A computed scene, shared read-only by every view.
using SceneResultPtr = std::shared_ptr<const attn::SceneResult>;
