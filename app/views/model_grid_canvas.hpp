// AttnScope — paints the layers × heads thumbnails of the model view. GPL-3.0-or-later.
#pragma once

#include <QWidget>
#include <vector>

#include "views/model_grid_data.hpp"

/// The grid itself: row labels (layers), column labels (heads), one thumbnail per cell, a
/// frame on the current (layer, head), and a colour legend. Paints with QPainter only, so an
/// SVG/PDF export keeps its text and lines as vectors.
class ModelGridCanvas : public QWidget {
    Q_OBJECT
  public:
    explicit ModelGridCanvas(QWidget* parent = nullptr);

    void setThumbnails(model_grid::Thumbnails thumbnails);
    const model_grid::Thumbnails& thumbnails() const { return thumbs_; }
    void setCurrent(int layer, int head);
    /// Recolours the thumbnails (nothing is recomputed).
    void setColorMap(ColorMapKind kind);
    ColorMapKind colorMap() const { return colorMap_; }
    /// Shown instead of the grid (e.g. "Computing…" or an error).
    void setMessage(const QString& message);

    /// A text the canvas paints: where, what, and whether in the title's bold font.
    struct Label {
        QRectF rect;
        QString text;
        bool bold = false;
        int flags = 0;  ///< Qt::Alignment | Qt::TextFlag
    };
    /// Every text of the grid as painted (title, subtitle, head and layer labels, legend), for
    /// the painter and for layout tests: each fits its rectangle, inside the canvas.
    std::vector<Label> labels() const;
    /// The colour ramp of the legend (its text is a label), clear of every label.
    QRectF legendRamp() const;
    /// The thumbnail of (layer, head), in canvas coordinates (empty while there is none).
    QRectF thumbRect(int layer, int head) const;

    QSize sizeHint() const override { return {900, 700}; }
    QSize minimumSizeHint() const override { return {240, 200}; }

  Q_SIGNALS:
    /// A click marks a head; a double-click opens it; hovering names it (−1, −1: none).
    void cellClicked(int layer, int head);
    /// A right click (or the menu key) on a cell, at GLOBAL: the head's context menu.
    void cellMenuRequested(int layer, int head, const QPoint& global);
    void cellDoubleClicked(int layer, int head);
    void cellHovered(int layer, int head);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    bool event(QEvent* event) override;  // tooltips: the whole title only

  private:
    struct Geometry {
        QRectF area;  ///< where the cells are
        double cell = 0;
        double side = 0;  ///< thumbnail side inside a cell
        QRectF thumb(int layer, int head) const;
    };
    Geometry geometry() const;
    bool cellAt(QPointF pos, int* layer, int* head) const;
    /// Grouped-query attention: the heads of one key/value group bracketed (labelled in labels()).
    void drawKvGroups(QPainter& p, const Geometry& g) const;
    bool hasKvGroups() const;
    /// The height under the grid that the groups' bracket and labels take (0 without groups).
    double kvBand() const;
    /// The width left of the grid that the layer labels take.
    double leftBand() const;
    /// The label of row LAYER: "Layer 3"; in a model of window and global layers, "Layer 3 ·
    /// window 4" or "Layer 3 · global".
    QString rowLabel(int layer) const;
    QString legendText() const;
    QString fullTitleAt(QPointF pos) const;

    model_grid::Thumbnails thumbs_;
    int layer_ = 0, head_ = 0;
    ColorMapKind colorMap_ = ColorMapKind::Viridis;
    QList<QRgb> colors_ = model_grid::thumbnailColors(ColorMapKind::Viridis);
    QString message_;
    int hoverLayer_ = -1, hoverHead_ = -1;
};
