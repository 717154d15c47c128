// AttnScope — the "lookup" lens: attention as a soft dictionary lookup. GPL-3.0-or-later.
#pragma once

#include <memory>

#include "attn/scene/scene.hpp"
#include "lenses/lens_panel.hpp"

class QCPBars;
class QCPItemStraightLine;

/// α of one query as a categorical distribution, sampled hard lookups against the exact
/// expectation αᵀV, and the temperature sweep from uniform to argmax.
class LookupLens : public LensPanel {
    Q_OBJECT
  public:
    explicit LookupLens(Scene* scene, QWidget* parent = nullptr);
    /// The temperature chosen with the slider.
    double temperature() const;

  protected:
    Compute prepare() override;

  private:
    /// The lookup of the selected query and head of r, drawn.
    void drawLookup(const attn::SceneResult& r);
    /// The scene computed for the last draw and its spec: choosing another query or head (the
    /// selection) redraws from it instead of computing the scene again.
    std::shared_ptr<const attn::SceneResult> computed_;
    attn::SceneSpec computedSpec_;
    QSpinBox* query_ = nullptr;
    QSpinBox* head_ = nullptr;
    QSlider* tau_ = nullptr;
    QSlider* samples_ = nullptr;
    QCustomPlot* dist_ = nullptr;
    QCustomPlot* conv_ = nullptr;
    QCustomPlot* sweep_ = nullptr;
    QCPBars* alphaBars_ = nullptr;
    QCPBars* freqBars_ = nullptr;
    QCPItemStraightLine* tauMarker_ = nullptr;
};
