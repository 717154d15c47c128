// AttnScope — QCustomPlot colours from the Qt palette, so plots follow light and dark themes.
// GPL-3.0-or-later.
#pragma once

#include <QColor>
#include <QPalette>

class QCustomPlot;

/// Colours every axis, grid and background of plot from palette (window text on base).
void applyPlotTheme(QCustomPlot* plot, const QPalette& palette);
/// Moves the legend under the axes, in two columns: many lines inside would hide the curves.
void placeLegendBelow(QCustomPlot* plot);

/// A neutral colour for masked cells, distinct from every colour-map colour on this palette.
QColor maskedCellColor(const QPalette& palette);

/// The outline colour of the selected row/cell: visible on every colour map.
QColor selectionColor(const QPalette& palette);

/// True for a dark palette (light text on dark background).
bool isDarkPalette(const QPalette& palette);
