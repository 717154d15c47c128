// AttnScope — writes any view as a PNG, SVG or PDF figure. GPL-3.0-or-later.
#pragma once

#include <QString>

#include "export/export_options.hpp"

class QCPPainter;
class QFont;
class QWidget;

namespace exporting {

/// The part of VIEW a figure shows: its descendant marked kFigureProperty, else VIEW.
QWidget* figureOf(QWidget* view);

/// Renders `view`'s figure (figureOf) at options.size (logical pixels) into `path` in
/// options.format (PNG, SVG or PDF). The view is resized for the duration of the export and
/// restored afterwards. Returns an empty string on success, else a sentence naming the file and the
/// problem.
QString exportFigure(QWidget* view, const QString& path, const Options& options);

/// Height in logical pixels of the band a figure title takes (0 without a title).
int titleBandHeight(const QString& title, const QFont& font);
/// Paints the title band (if any) and then `view` below it, at the painter's origin.
void paintFigure(QCPPainter* painter, QWidget* view, const QString& title);

}  // namespace exporting
