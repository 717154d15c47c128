// AttnScope — the numbers a plot-based view draws, read back from its plots. GPL-3.0-or-later.
#pragma once

#include <QList>

#include "export/numbers_export.hpp"

class QCustomPlot;
class QWidget;
class PlaygroundWidget;

namespace exporting {

/// Every visible, non-empty curve (QCPGraph), bar chart (QCPBars) and colour map (QCPColorMap)
/// of plots, in layout and drawing order, with exactly the values drawn. Read from the plots
/// themselves so that an export can never drift from the picture.
PlotNumbers numbersOfPlots(const QList<QCustomPlot*>& plots);

/// The playground's numbers: the query, key, value and output points and the weights α
/// (a matrix: z = α_ij at x = key j, y = query i), labelled q1…, k1…, v1…, o1….
PlotNumbers numbersOfPlayground(const PlaygroundWidget& playground);

/// The numbers of a plot-based view shown in `view` (a lens or the playground, looking through
/// nested tab widgets to their current page); false when view is not one of them.
bool plotNumbersOfView(QWidget* view, PlotNumbers* numbers);

}  // namespace exporting
