// AttnScope — the model view: a layers × heads grid of thumbnails with layer/head selectors.
// GPL-3.0-or-later.
#pragma once

#include <QWidget>

#include "views/model_grid_data.hpp"

class ComputeService;
class LayerCache;
class WhileVisible;
class ModelGridCanvas;
class QLabel;
class QSpinBox;
class Scene;

/// Shows every layer and head of the scene at a glance. Clicking a thumbnail (or using the
/// selectors) makes that layer the scene's layer — an undoable step — and that head the
/// selection's head, then asks for the heatmap grid (headActivated). The thumbnails are the
/// scene's LayerCache's, asked for while the view is visible; with the window's ComputeService,
/// the layer it has just computed is taken from its result instead of being computed again.
class ModelGrid : public QWidget {
    Q_OBJECT
  public:
    explicit ModelGrid(Scene* scene, ComputeService* compute = nullptr, QWidget* parent = nullptr);

    /// Computes the thumbnails now, on this thread (headless rendering and tests); `known` is
    /// the scene's own result when the caller has it.
    void refreshNow(const attn::SceneResult* known = nullptr);
    /// Colours the thumbnails with kind (the controls' colour map).
    void setColorMap(ColorMapKind kind);
    const model_grid::Thumbnails& thumbnails() const;
    /// Marks (layer, head): shows that layer (a loaded file's or model's) and selects the head.
    void markHead(int layer, int head);
    /// Marks (layer, head), then asks for it in the heatmap grid (headActivated).
    void openHead(int layer, int head);

  Q_SIGNALS:
    /// The user picked a head to look at closely: show the heatmap grid.
    void headActivated(int layer, int head);

  protected:
    /// Names the hovered head and its numbers in the note (−1: the hint again).
    void showHovered(int layer, int head);

  private:
    void onSpecChanged();
    void onSelectionChanged();
    void startCompute();
    void onComputed();
    void syncSelectors();

    Scene* scene_;
    ModelGridCanvas* canvas_;
    QSpinBox* layerBox_;
    QSpinBox* headBox_;
    QLabel* note_;
    LayerCache* cache_;
    WhileVisible* refresh_;
};
