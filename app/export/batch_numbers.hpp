// AttnScope — the numbers of the Batch tab's panels. GPL-3.0-or-later.
#pragma once

#include "export/numbers_export.hpp"

class QWidget;

namespace exporting {

/// The numbers the Batch tab (VIEW: the tab or one of its panels) draws: the map panel's mean,
/// standard deviation and count per head (z at column x = head, row y = layer, from 0), the
/// census panel's mean score of every pattern and every label's wins per head, the examples
/// panel's effect of each example in rank order (x the rank from 0, y the effect, x_label
/// "line: prompt"); an attribute batch's curves (per method its mean and mean ∓ s.d. at
/// x = k tokens erased), mean agreement, its s.d. and count (z at column x, row y: the methods)
/// and the example on show's scores per token (x the position, x_label the token). False when
/// VIEW is none of them.
bool batchNumbersOfView(QWidget* view, PlotNumbers* numbers);

}  // namespace exporting
