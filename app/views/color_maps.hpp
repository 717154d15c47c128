// AttnScope — perceptually uniform colour maps for QCustomPlot. GPL-3.0-or-later.
#pragma once

#include <QColor>
#include <QString>
#include <QStringList>
#include <array>

#include "model/heatmap_style.hpp"
#include "views/qcp.hpp"

// ColorMapKind, the colour maps offered for heatmaps (QCustomPlot ships none of these), is part
// of the view state: model/heatmap_style.hpp.

/// The map's 256 colours (low → high): the one table every view colours with, interpolated in
/// RGB between matplotlib's evenly spaced samples.
const std::array<QRgb, 256>& colorTable(ColorMapKind kind);
/// The colour of t ∈ [0, 1] (clamped; NaN gives the lowest colour) from colorTable(kind).
QRgb mapColor(ColorMapKind kind, double t);
/// A QCustomPlot gradient of exactly colorTable(kind) (256 levels).
QCPColorGradient makeGradient(ColorMapKind kind);
/// Stable identifier for settings and the CLI ("viridis", "magma", "cividis", "greys").
QString colorMapId(ColorMapKind kind);
/// Parses an identifier of colorMapId; unknown names give Viridis.
ColorMapKind colorMapFromId(const QString& id);
/// Every kind, in menu order.
QList<ColorMapKind> allColorMaps();
/// Name shown to the user.
QString colorMapLabel(ColorMapKind kind);
