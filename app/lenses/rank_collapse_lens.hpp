// AttnScope — the "rank-collapse" lens: stacks of pure attention lose rank.
// GPL-3.0-or-later.
#pragma once

#include "lenses/lens_panel.hpp"

/// Distance of the token matrix from rank one vs depth: pure attention, residual (1/√L) and
/// residual (β = 1).
class RankCollapseLens : public LensPanel {
    Q_OBJECT
  public:
    explicit RankCollapseLens(Scene* scene, QWidget* parent = nullptr);

  protected:
    void recompute() override;

  private:
    QSpinBox* depth_ = nullptr;
    QSpinBox* n_ = nullptr;
    QSpinBox* d_ = nullptr;
    QDoubleSpinBox* sharp_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QCustomPlot* plot_ = nullptr;
};
