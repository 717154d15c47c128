// AttnScope — AttentionViz's joint query–key space: queries and keys of a head by PCA.
// GPL-3.0-or-later.
#pragma once

#include <QPointF>
#include <optional>

#include "views/attention_view.hpp"

class QPushButton;

/// The focused head's queries (blue) and keys (orange) projected together onto their top two
/// principal directions, with lines from the selected query to its top-weighted keys. Dragging
/// a query moves its vector within that plane and its weights follow live (as in the
/// Playground); Reset puts it back. The moved query is this view's own: the scene keeps its
/// real vectors. Needs query and key vectors.
class QkView : public AttentionView {
    Q_OBJECT
  public:
    explicit QkView(QWidget* parent = nullptr);

    static constexpr int kTopKeys = 5;
    const attn::QkProjection& projection() const { return proj_; }
    /// Widget position of query i (moved when it is the dragged one) and key j.
    QPointF queryPoint(int i) const;
    QPointF keyPoint(int j) const;
    /// The weights of the selected query as drawn (several: their sum or mean), live while
    /// moved, else the head's row.
    Eigen::RowVectorXf liveWeights() const;
    /// Query i's weights: live for the moved query, the head's row otherwise.
    Eigen::RowVectorXf queryWeights(int i) const;
    /// The selected queries inside the projection (none while a message is shown).
    std::vector<int> selectedQueries() const;
    /// The moved query and its offset along the two axes, if any.
    int movedQuery() const { return moved_; }
    QPointF offset() const { return offset_; }
    /// Puts the moved query back.
    void reset();
    QString message() const;

  protected:
    void rebuild() override;
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

  private:
    QPointF toPixels(double x, double y) const;
    QPointF toPlane(const QPointF& pixels) const;
    QRectF plotRect() const;
    int head() const;

    attn::QkProjection proj_;
    double x0_ = -1, x1_ = 1, y0_ = -1, y1_ = 1;  ///< plane bounds, fixed per result
    int projHead_ = -1;
    int moved_ = -1;  ///< query moved by dragging, −1 none
    QPointF offset_;  ///< its shift along the two axes
    bool dragging_ = false;
    QPushButton* reset_ = nullptr;
};
