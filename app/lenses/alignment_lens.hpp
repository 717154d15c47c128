// AttnScope — the "alignment" lens: cross-attention between a source and a target sentence.
// GPL-3.0-or-later.
#pragma once

#include <string>

#include "attn/lenses/alignment.hpp"
#include "lenses/lens_heatmap.hpp"
#include "lenses/lens_panel.hpp"

class QLabel;
class QLineEdit;
class QSlider;

/// The seq2seq alignment matrix (Bahdanau, Luong) with a selectable score function; on loaded
/// cross-attention (a Marian "Cross"), that file's matrix, its tokens and what it is.
class AlignmentLens : public LensPanel {
    Q_OBJECT
  public:
    explicit AlignmentLens(Scene* scene, QWidget* parent = nullptr);

    /// What the lens shows of loaded cross-attention (empty `file` when it shows the untrained
    /// model's typed sentences).
    struct Loaded {
        QString file, component;
        int layer = 0, layers = 0, heads = 0;  ///< layer counted from 0
        bool scores = false;                   ///< raw q·k rather than post-softmax weights
        bool fromModel = false;  ///< computed by an open translation model (file: its folder)
    };

  protected:
    Compute prepare() override;

  private:
    /// Fills the matrix and the readout with what prepare()'s worker computed.
    void drawAlignment(const attn::lenses::Alignment& a, attn::Index heads, const Loaded& loaded);
    /// The head argument of attn::lenses::cross_alignment for the head box's choice.
    attn::Index headChoice() const;
    /// Fits the step slider to N target tokens (kept at all of them when it was).
    void fitStep(int n);
    /// Follows the scene's sentences and head count when they change (keeps user edits
    /// otherwise).
    void syncWithScene();
    /// Replaces the default (French) target when the source is no longer the default sentence.
    void pairTarget();
    /// Shows the typed sentences and score (untrained model) or the loaded tokens and what the
    /// loaded matrix is, in the controls and the explanation.
    void showLoaded(const Loaded& loaded, const attn::lenses::Alignment* a);

    std::string sceneText_, sceneCross_;
    QLineEdit* source_ = nullptr;
    QLineEdit* target_ = nullptr;
    bool autoTarget_ = true;  ///< the target was not typed by the user (default or self)
    QComboBox* score_ = nullptr;
    /// "mean of the heads", "head 1" … "head H", "max of the heads".
    QComboBox* head_ = nullptr;
    /// Target tokens shown (the translation step by step); at its maximum, all of them.
    QSlider* step_ = nullptr;
    // Loaded cross-attention: its tokens and weights, read-only (not session settings).
    QLabel* loadedSource_ = nullptr;
    QLabel* loadedTarget_ = nullptr;
    QLabel* loadedScore_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    LensHeatmap map_;
    QCPGraph* argmax_ = nullptr;
};
