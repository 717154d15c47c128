// AttnScope — the "alignment" lens: cross-attention between a source and a target sentence.
// GPL-3.0-or-later.
#pragma once

#include <string>

#include "attn/lenses/alignment.hpp"
#include "lenses/lens_heatmap.hpp"
#include "lenses/lens_panel.hpp"

class QLineEdit;

/// The seq2seq alignment matrix (Bahdanau, Luong) with a selectable score function.
class AlignmentLens : public LensPanel {
    Q_OBJECT
  public:
    explicit AlignmentLens(Scene* scene, QWidget* parent = nullptr);

  protected:
    Compute prepare() override;

  private:
    /// Fills the matrix and the readout with what prepare()'s worker computed.
    void drawAlignment(const attn::lenses::Alignment& a, attn::Index heads);
    /// Follows the scene's sentences and head count when they change (keeps user edits
    /// otherwise).
    void syncWithScene();
    /// Replaces the default (French) target when the source is no longer the default sentence.
    void pairTarget();

    std::string sceneText_, sceneCross_;
    QLineEdit* source_ = nullptr;
    QLineEdit* target_ = nullptr;
    bool autoTarget_ = true;  ///< the target was not typed by the user (default or self)
    QComboBox* score_ = nullptr;
    QComboBox* head_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    LensHeatmap map_;
    QCPGraph* argmax_ = nullptr;
};
