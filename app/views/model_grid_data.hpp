// AttnScope — the colours of the Model tab's and the census's thumbnails. GPL-3.0-or-later.
#pragma once

#include <QList>
#include <QRgb>

#include "model/layer_thumbnails.hpp"
#include "views/color_maps.hpp"

namespace model_grid {

/// The colour table of the thumbnails for a colour map (kMaskedIndex is grey).
QList<QRgb> thumbnailColors(ColorMapKind kind);

}  // namespace model_grid
