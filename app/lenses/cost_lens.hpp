// AttnScope — the "cost" lens: where the FLOPs go, and the KV cache. GPL-3.0-or-later.
#pragma once

#include "lenses/lens_panel.hpp"

class QCPBars;
class QCPItemStraightLine;
class QCPItemText;

/// FLOPs of QKᵀ and AV vs the projections as n grows, the crossover, the (constant) total
/// over head counts, and a KV-cache calculator for MHA / GQA / MQA.
class CostLens : public LensPanel {
    Q_OBJECT
  public:
    explicit CostLens(Scene* scene, QWidget* parent = nullptr);

  protected:
    void recompute() override;

  private:
    QSpinBox* dModel_ = nullptr;
    QSpinBox* heads_ = nullptr;
    QSpinBox* kvHeads_ = nullptr;
    QSpinBox* layers_ = nullptr;
    QSpinBox* n_ = nullptr;
    QComboBox* bytes_ = nullptr;
    QCustomPlot* flops_ = nullptr;
    QCustomPlot* heads_plot_ = nullptr;
    QCustomPlot* cache_ = nullptr;
    QCPItemStraightLine* cross_ = nullptr;
    QCPItemText* crossLabel_ = nullptr;
    QCPBars* proj_bars_ = nullptr;
    QCPBars* attn_bars_ = nullptr;
    QCPItemStraightLine* cacheMarker_ = nullptr;
};
