// AttnScope — paints a widget tree onto any device, keeping QCustomPlot plots vector.
// GPL-3.0-or-later.
#pragma once

class QCPPainter;
class QWidget;

namespace exporting {

/// Paints `root` and its visible descendants at the painter's origin. Plain widgets go through
/// QWidget::render (itself vector on SVG/PDF devices); every QCustomPlot is drawn with
/// QCustomPlot::toPainter instead, because its paintEvent only blits a raster buffer: this keeps
/// axes and text as vectors, with colour maps embedded as images.
void paintWidgetTree(QCPPainter* painter, QWidget* root);

/// Lays `root` out at its current size without showing it on screen (headless rendering and
/// exports at a size other than the on-screen one), with the cells of its heatmap grids.
void settleLayout(QWidget* root);

}  // namespace exporting
