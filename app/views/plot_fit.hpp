// AttnScope — keeps a QCustomPlot readable at any size. GPL-3.0-or-later.
#pragma once

class QCustomPlot;

/// Keeps `plot` readable whatever its size, after every layout pass (on screen and offscreen):
/// numeric tick labels never overlap (fewer ticks when crowded, back when there is room), a
/// title wider than the plot wraps onto two lines, and — with legendBelow — a visible legend
/// sits under the axes in as many columns as fit, never over the curves. Text tickers (token
/// and category labels) are left to their owners, which thin them themselves.
void keepPlotReadable(QCustomPlot* plot, bool legendBelow = true);
