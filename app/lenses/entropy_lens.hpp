// AttnScope — the "entropy" lens: attention spreads thinner as the sequence grows.
// GPL-3.0-or-later.
#pragma once

#include <vector>

#include "attn/lenses/entropy.hpp"
#include "attn/scene/scene.hpp"
#include "lenses/lens_panel.hpp"

/// Mean row entropy vs its ceiling log n, for random keys and for the scene's heads.
class EntropyLens : public LensPanel {
    Q_OBJECT
  public:
    explicit EntropyLens(Scene* scene, QWidget* parent = nullptr);

  protected:
    Compute prepare() override;

  private:
    /// Fills the plots with the curves prepare()'s worker computed.
    void drawCurves(const attn::SceneSpec& spec, const std::vector<attn::Index>& ns,
                    const std::vector<attn::lenses::EntropyPoint>& random,
                    const attn::lenses::SceneEntropy& se, const QString& note);

    QSpinBox* maxN_ = nullptr;
    QSpinBox* dk_ = nullptr;
    QCheckBox* scale_ = nullptr;
    QCustomPlot* abs_ = nullptr;
    QCustomPlot* rel_ = nullptr;
};
