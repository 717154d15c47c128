// AttnScope — the colour range and colour-bar ticks of attention weights, linear or log.
// GPL-3.0-or-later.
#pragma once

#include "model/weight_span.hpp"
#include "views/qcp.hpp"

/// Decades a log colour scale spans when the weights alone do not say (only zeros and equal
/// weights, as at τ = 0): the floor is the largest weight × 10^−kLogFloorDecades.
inline constexpr double kLogFloorDecades = 3;

/// The colour range of weights. Linear: [0, largest]. Log: [floor, largest] where the floor
/// is the smallest positive weight (at least largest·1e-4) and never above largest·1e-3 when
/// a weight is exactly 0 or all positive weights are equal; weights below the floor (zeros) are
/// drawn in the floor's colour. A hard-max head thus spans 1e-3 … 1 with its 1s brightest.
QCPRange weightColorRange(const WeightSpan& span, bool logScale);

/// Makes scale show weights on a linear or log axis: log ticks at powers of ten labelled with
/// the weights themselves (0.001, 0.01, 0.1, 1), and a label saying where zeros go.
void setWeightScaleType(QCPColorScale* scale, bool logScale);

/// The colour bar's label: "weight", or for a log scale with its floor, "weight (log; ≤ 0.001
/// drawn as 0.001)".
QString weightScaleLabel(bool logScale, double floor);
