// AttnScope — widgets that help on screen but do not belong in an exported figure.
// GPL-3.0-or-later.
#pragma once

/// Boolean property: a widget (a hint, the hover readout) with it set to true is left out of
/// exported figures.
inline constexpr const char* kScreenOnlyProperty = "attnScreenOnly";

/// Boolean property of a QCustomPlot item that marks the on-screen selection (the selected
/// row's and cell's outlines): exported figures leave it out unless asked to keep it.
inline constexpr const char* kSelectionMarkProperty = "attnSelectionMark";

/// Boolean property: the widget with it set to true is its view's figure (the maps, their
/// titles, axes, keys and caption, without the fields and buttons that make them). Exports
/// draw it alone, at the size asked for; a view without one is its own figure.
inline constexpr const char* kFigureProperty = "attnFigure";
