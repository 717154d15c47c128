// AttnScope — the Model view's numbers: every layer's weights, streamed layer by layer.
// GPL-3.0-or-later.
#pragma once

#include <QString>

#include "attn/scene/scene.hpp"
#include "attn/util/progress.hpp"

namespace exporting {

/// Writes the weights of every layer of spec — the Model view's numbers, [L, H, Nq, Nk], one
/// layer as [H, Nq, Nk] — to path as .npy or .csv in writeNumbers' layout, one layer at a time
/// as `attnscope compute` does: each layer is computed, written and freed before the next.
/// `known` is spec's own result (its layer is not computed again). Throws attn::Cancelled,
/// leaving no file; returns an empty string or the error.
QString writeAllLayers(const attn::SceneSpec& spec, const QString& path,
                       attn::Progress* progress = nullptr,
                       const attn::SceneResult* known = nullptr);

}  // namespace exporting
