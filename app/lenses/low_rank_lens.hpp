// AttnScope — the "low-rank" lens: a bilinear score W ≈ W_Qᵀ W_K at rank r.
// GPL-3.0-or-later.
#pragma once

#include <string>
#include <vector>

#include "attn/scene/scene.hpp"
#include "lenses/lens_heatmap.hpp"
#include "lenses/lens_panel.hpp"

class QCPItemStraightLine;

/// Singular values of W, the rank slider, rank-r scores beside the full ones, error vs r.
class LowRankLens : public LensPanel {
    Q_OBJECT
  public:
    explicit LowRankLens(Scene* scene, QWidget* parent = nullptr);
    /// The rank chosen with the slider.
    int rank() const;

  protected:
    Compute prepare() override;

  private:
    /// Fills the plots from the scene's part computed by prepare()'s worker.
    void drawScene(const attn::SceneSpec& spec, attn::MatrixD W, attn::MatrixD X,
                   std::vector<std::string> tokens, QString what, QString note);

    QComboBox* source_ = nullptr;
    QSpinBox* head_ = nullptr;
    QSlider* rank_ = nullptr;
    QCustomPlot* sv_ = nullptr;
    QCustomPlot* err_ = nullptr;
    QCustomPlot* full_ = nullptr;
    QCustomPlot* approx_ = nullptr;
    LensHeatmap fullMap_, approxMap_;
    QCPItemStraightLine* svMarker_ = nullptr;
    QCPItemStraightLine* errMarker_ = nullptr;
};
