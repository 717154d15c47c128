// AttnScope — the numbers behind the model view: every layer's heads as thumbnails.
// GPL-3.0-or-later.
#pragma once

#include <QImage>
#include <QString>
#include <functional>
#include <vector>

#include "attn/progress.hpp"
#include "attn/scene.hpp"

namespace model_grid {

/// One thumbnail per (layer, head), row-major by layer.
struct Thumbnails {
    int layers = 0, heads = 0;
    int queries = 0, keys = 0;
    std::vector<QImage> images;     ///< layers·heads images, at most maxSide pixels a side
    std::vector<double> entropy;    ///< mean row entropy (nats) per (layer, head)
    std::vector<double> maxWeight;  ///< largest weight per (layer, head), the colour's top
    bool weightsOnly = false;
    QString title;  ///< "file — component" or the sentence
    QString error;  ///< non-empty: the computation failed, this says why
    const QImage& at(int layer, int head) const {
        return images[static_cast<std::size_t>(layer * heads + head)];
    }
};

/// Number of layers a spec shows (1 for computed scenes).
int layerCount(const attn::SceneSpec& spec);

/// Computes every layer of `spec` the way the heatmap grid does (compute_scene with the
/// layer switched) and reduces each head's weights to a thumbnail: max-pooled to at most
/// maxSide cells a side (peaks stay visible), coloured with viridis scaled to the head's own
/// maximum, masked cells grey. Throws attn::Error / attn::Cancelled.
Thumbnails computeThumbnails(const attn::SceneSpec& spec, int maxSide,
                             attn::Progress* progress = nullptr);

/// Calls `sink(layer, result)` for every layer of spec in order (used for exporting numbers).
/// keepStages = false: computed scenes keep weights only (see attn::compute_scene).
void forEachLayer(const attn::SceneSpec& spec,
                  const std::function<void(int, const attn::SceneResult&)>& sink,
                  attn::Progress* progress = nullptr, bool keepStages = true);

/// Viridis at t ∈ [0, 1] (clamped).
QRgb viridis(double t);

}  // namespace model_grid
