// AttnScope — the kernel-regression panel: attention as Nadaraya–Watson smoothing in 1-D.
// GPL-3.0-or-later.
#pragma once

#include "model/playground_model.hpp"
#include "views/qcp.hpp"

/// Keys as x positions (their first coordinate) with scalar values y (their value's first
/// coordinate); the prediction ŷ(q) as q sweeps the axis, for the RBF kernel and for the
/// exponential dot kernel; the selected query's x marked on both curves. Keys are draggable:
/// horizontally moves the key, vertically its value.
class RegressionPanel : public QCustomPlot {
    Q_OBJECT
  public:
    explicit RegressionPanel(PlaygroundModel* model, QWidget* parent = nullptr);

    /// Pixel of key j's point (tests).
    QPointF pixelOfKey(int j) const;
    QCPGraph* rbfCurve() const { return rbf_; }
    QCPGraph* expDotCurve() const { return expDot_; }
    /// Redraws from the model.
    void refresh();

  protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    void rescale();

    PlaygroundModel* model_;
    QCPGraph* rbf_ = nullptr;
    QCPGraph* expDot_ = nullptr;
    QCPGraph* keys_ = nullptr;
    QCPGraph* marks_ = nullptr;
    QCPItemStraightLine* queryLine_ = nullptr;
    QCPTextElement* title_ = nullptr;
    int dragKey_ = -1;
    attn::PlaygroundState dragStart_;
    QPointF anchor_;
};
