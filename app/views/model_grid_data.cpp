// AttnScope — the colours of the thumbnails. GPL-3.0-or-later.
#include "views/model_grid_data.hpp"

namespace model_grid {
namespace {
constexpr QRgb kMaskedColour = qRgb(200, 200, 200);
}  // namespace

QList<QRgb> thumbnailColors(ColorMapKind kind) {
    QList<QRgb> colors;
    colors.reserve(256);
    for (int i = 0; i < kMaskedIndex; ++i)
        colors.push_back(mapColor(kind, double(i) / (kMaskedIndex - 1)));
    colors.push_back(kMaskedColour);
    return colors;
}

}  // namespace model_grid
