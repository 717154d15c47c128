// AttnScope — the "efficient" lens: sparse masks, FAVOR+ and tiled exact attention.
// GPL-3.0-or-later.
#pragma once

#include "lenses/lens_heatmap.hpp"
#include "lenses/lens_panel.hpp"

class QCPBars;

/// Errors of sparse patterns and linear attention against exact, FAVOR+ error vs features,
/// the BigBird pattern, and the peak memory of dense vs tiled (online-softmax) attention.
class EfficientLens : public LensPanel {
    Q_OBJECT
  public:
    explicit EfficientLens(Scene* scene, QWidget* parent = nullptr);

  protected:
    void recompute() override;

  private:
    QSpinBox* n_ = nullptr;
    QSpinBox* d_ = nullptr;
    QDoubleSpinBox* locality_ = nullptr;
    QSpinBox* window_ = nullptr;
    QSpinBox* random_ = nullptr;
    QSpinBox* features_ = nullptr;
    QCheckBox* orthogonal_ = nullptr;
    QSpinBox* block_ = nullptr;
    QCustomPlot* errors_ = nullptr;
    QCustomPlot* favor_ = nullptr;
    QCustomPlot* mask_ = nullptr;
    QCustomPlot* memory_ = nullptr;
    QCPBars* bars_ = nullptr;
    LensHeatmap maskMap_;
};
