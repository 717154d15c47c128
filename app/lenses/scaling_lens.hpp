// AttnScope — the "scaling" lens: why dot-product scores are divided by √d_k.
// GPL-3.0-or-later.
#pragma once

#include "lenses/lens_panel.hpp"

class QCPItemStraightLine;

/// Histogram of q·k with and without 1/√d_k, variance vs d_k, and the saturation of the
/// unscaled softmax (max weight, entropy, Jacobian norm) as d_k grows.
class ScalingLens : public LensPanel {
    Q_OBJECT
  public:
    explicit ScalingLens(Scene* scene, QWidget* parent = nullptr);
    /// d_k chosen with the slider.
    int dk() const;

  protected:
    void recompute() override;

  private:
    QSlider* dk_ = nullptr;
    QSpinBox* keys_ = nullptr;
    QCustomPlot* hist_ = nullptr;
    QCustomPlot* var_ = nullptr;
    QCustomPlot* sat_ = nullptr;
    QCustomPlot* jac_ = nullptr;
    QList<QCPItemStraightLine*> markers_;
};
