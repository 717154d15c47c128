// AttnScope — how heatmaps are drawn: the style lives in the view state's model
// (model/heatmap_style.hpp). GPL-3.0-or-later.
#pragma once

#include "model/heatmap_style.hpp"
#include "views/color_maps.hpp"
