// AttnScope — how heatmaps are drawn (display options, not part of the scene).
// GPL-3.0-or-later.
#pragma once

#include "attn/aggregate.hpp"
#include "views/color_maps.hpp"

/// Display options shared by every heatmap of a grid; persisted in QSettings, no undo.
struct HeatmapStyle {
    ColorMapKind colorMap = ColorMapKind::Viridis;
    bool logScale = false;    ///< logarithmic colour scale (weights spanning decades)
    bool sharedRange = true;  ///< one colour range for all heads (comparable) or one per head
    attn::Aggregation aggregation =
        attn::Aggregation::Max;  ///< when n exceeds the pixels available
    bool operator==(const HeatmapStyle&) const = default;
};
