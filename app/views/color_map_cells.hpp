// AttnScope — a head's aggregated cells as QCustomPlot colour-map data, in one copy.
// GPL-3.0-or-later.
#pragma once

#include "attn/attention/aggregate.hpp"
#include "views/qcp.hpp"

/// QCPColorMapData filled from an AggregatedGrid in one pass over its row-major values (the same
/// layout as QCustomPlot's), instead of a library call per cell (setCell checks bounds and updates
/// the data range each time: a fifth of a 12 × 512² render went there). Values below `floor` are
/// drawn at floor (log colour scales cannot place 0); cells whose every source cell is masked are
/// transparent, so the hatching behind them shows.
QCPColorMapData* colorMapCells(const attn::AggregatedGrid& cells, double floor);
