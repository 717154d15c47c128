// AttnScope — the numbers behind the model view: every layer's heads as thumbnails.
// GPL-3.0-or-later.
#pragma once

#include <QImage>
#include <QList>
#include <QString>
#include <vector>

#include "attn/progress.hpp"
#include "attn/scene.hpp"
#include "views/color_maps.hpp"

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
    bool weightsOnly = false;
    QString title;  ///< "file — component" or the sentence
    QString error;  ///< non-empty: the computation failed, this says why
    const QImage& at(int layer, int head) const {
        return images[static_cast<std::size_t>(layer * heads + head)];
    }
};

/// Computes every layer of `spec` the way the heatmap grid does (attn::for_each_layer) and
/// reduces each head's weights to a thumbnail: max-pooled (attn::aggregate) to at most maxSide
/// cells a side, so peaks stay visible, scaled to the head's own maximum. `known` is spec's own
/// result when the caller has it: that layer is not computed again. Throws attn::Error /
/// attn::Cancelled.
Thumbnails computeThumbnails(const attn::SceneSpec& spec, int maxSide,
                             attn::Progress* progress = nullptr,
                             const attn::SceneResult* known = nullptr);

/// The colour table of the thumbnails for a colour map (kMaskedIndex is grey).
QList<QRgb> thumbnailColors(ColorMapKind kind);

}  // namespace model_grid
