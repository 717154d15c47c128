// AttnScope — how heatmaps are drawn (display options, not part of the scene): a piece of the
// view state (model/view_state.hpp). GPL-3.0-or-later.
#pragma once

#include "attn/attention/aggregate.hpp"

/// The colour maps offered for heatmaps (views/color_maps.hpp has their colours).
enum class ColorMapKind { Viridis, Magma, Cividis, Greys };

/// Display options shared by every heatmap of a grid; held by ViewState, edited through undo.
struct HeatmapStyle {
    ColorMapKind colorMap = ColorMapKind::Viridis;
    bool logScale = false;    ///< logarithmic colour scale (weights spanning decades)
    bool sharedRange = true;  ///< one colour range for all heads (comparable) or one per head
    attn::Aggregation aggregation =
        attn::Aggregation::Max;  ///< when n exceeds the pixels available
    bool operator==(const HeatmapStyle&) const = default;
};
