// AttnScope — every layer's heads as small indexed images (the Model tab, the census).
// GPL-3.0-or-later.
#pragma once

#include <QImage>
#include <QString>
#include <vector>

#include "attn/scene/scene.hpp"

namespace model_grid {

/// Colour index of a thumbnail cell where every pooled pair is masked (drawn grey).
inline constexpr int kMaskedIndex = 255;

/// One thumbnail per (layer, head), row-major by layer.
struct Thumbnails {
    int layers = 0, heads = 0;
    int kvGroups = 0;  ///< key/value groups of the heads (grouped-query attention: < heads)
    int queries = 0, keys = 0;
    /// layers·heads 8-bit indexed images, at most maxSide pixels a side: index 0…254 is the
    /// weight over the head's own maximum, kMaskedIndex a masked cell. The colour table comes
    /// at paint time (thumbnailColors), so changing the colour map recomputes nothing.
    std::vector<QImage> images;
    std::vector<double> entropy;    ///< mean row entropy (nats) per (layer, head)
    std::vector<double> maxWeight;  ///< largest weight per (layer, head), the colour's top
    /// Per layer: the causal window its heads ran with (Gemma's local layers, Mistral); 0: none.
    std::vector<int> windows;
    bool weightsOnly = false;
    QString title;  ///< "file — component" or the sentence
    QString error;  ///< non-empty: the computation failed, this says why
    const QImage& at(int layer, int head) const {
        return images[static_cast<std::size_t>(layer * heads + head)];
    }
};

/// What a grid of spec's thumbnails is titled: "file — component", "model — text" or the text.
QString sceneTitle(const attn::SceneSpec& spec);

/// Appends one computed layer's heads to t: each head's weights max-pooled (attn::aggregate) to
/// at most maxSide cells a side, so peaks stay visible, scaled to the head's own maximum.
/// Every layer is computed once, by LayerCache, for every view that reads them all.
void addLayer(Thumbnails& t, const attn::SceneResult& r, int maxSide);

}  // namespace model_grid
