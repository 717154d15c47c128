// AttnScope — perceptually uniform colour maps for QCustomPlot. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <QStringList>

#include "views/qcp.hpp"

/// The colour maps offered for heatmaps (QCustomPlot ships none of these).
enum class ColorMapKind { Viridis, Magma, Cividis, Greys };

/// A gradient with matplotlib's stops for kind (low → high), 256 levels, RGB interpolation.
QCPColorGradient makeGradient(ColorMapKind kind);
/// Stable identifier for settings and the CLI ("viridis", "magma", "cividis", "greys").
QString colorMapId(ColorMapKind kind);
/// Parses an identifier of colorMapId; unknown names give Viridis.
ColorMapKind colorMapFromId(const QString& id);
/// Every kind, in menu order.
QList<ColorMapKind> allColorMaps();
/// Name shown to the user.
QString colorMapLabel(ColorMapKind kind);
