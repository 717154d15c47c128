// AttnScope — the "entropy" lens: attention spreads thinner as the sequence grows.
// GPL-3.0-or-later.
#pragma once

#include "lenses/lens_panel.hpp"

/// Mean row entropy vs its ceiling log n, for random keys and for the scene's heads.
class EntropyLens : public LensPanel {
    Q_OBJECT
  public:
    explicit EntropyLens(Scene* scene, QWidget* parent = nullptr);

  protected:
    void recompute() override;

  private:
    QSpinBox* maxN_ = nullptr;
    QSpinBox* dk_ = nullptr;
    QCheckBox* scale_ = nullptr;
    QCustomPlot* abs_ = nullptr;
    QCustomPlot* rel_ = nullptr;
};
