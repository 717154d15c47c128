// AttnScope — one plane of the playground: queries and keys, values, or both overlaid.
// GPL-3.0-or-later.
#pragma once

#include <optional>
#include <vector>

#include "model/playground_model.hpp"
#include "views/qcp.hpp"

/// Draws the points of the playground and lets you drag, add, delete, select, nudge and mask
/// them. The query/key plane shows queries, keys and lines from the selected query to every key
/// (width and opacity ∝ weight); the value plane shows values, their convex hull and the outputs.
/// Overlaid, the query/key plane shows everything and the value plane is hidden.
class PointPlane : public QCustomPlot {
    Q_OBJECT
  public:
    enum class Role { QueryKey, Value };
    PointPlane(PlaygroundModel* model, Role role, QWidget* parent = nullptr);

    Role role() const { return role_; }
    /// Whether this plane shows (and lets you drag) points of that kind.
    bool shows(PointRef::Kind kind) const;
    /// Pixel position of a point in this widget (tests simulate drags with it).
    QPointF pixelOf(const PointRef& p) const;
    /// Plot coordinates of a pixel.
    QPointF coordOf(const QPointF& pixel) const;
    /// Rescales both axes (equal aspect) so every shown point fits.
    void fitView();
    /// Redraws from the model (the model calls this through its changed() signal).
    void refresh();
    /// The text rectangles of the visible point labels as last placed (pixels): labels never
    /// overlap each other, even when an output sits on a value.
    const std::vector<QRectF>& labelRects() const { return labelRects_; }

  protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    std::optional<PointRef> hit(const QPointF& pixel) const;
    bool overlay() const;
    void keepAspect();
    void addAt(const QPointF& pixel, bool query);
    void deleteSelection();
    void nudge(double dx, double dy);
    void toggleMaskOf(int key);
    QCPGraph* scatter(QCPScatterStyle style, const QString& name);
    void drawLines();
    void drawLabels();
    void placeLabels();

    PlaygroundModel* model_;
    Role role_;
    QCPCurve* hull_ = nullptr;
    QCPGraph* keys_ = nullptr;
    QCPGraph* maskedKeys_ = nullptr;
    QCPGraph* values_ = nullptr;
    QCPGraph* selected_ = nullptr;
    QCPGraph* sample_ = nullptr;
    std::vector<QCPGraph*> queries_, outputs_;
    std::vector<QCPItemLine*> lines_;
    std::vector<QCPItemText*> labels_;
    std::vector<QRectF> labelRects_;
    QCPTextElement* title_ = nullptr;

    // Drag in progress: the state when it started, the press position in plot coordinates.
    bool dragging_ = false;
    attn::PlaygroundState dragStart_;
    std::vector<PointRef> dragged_;
    QPointF anchor_;
    bool fitted_ = false;
};
