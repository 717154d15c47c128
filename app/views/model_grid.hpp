// AttnScope — the model view: a layers × heads grid of thumbnails with layer/head selectors.
// GPL-3.0-or-later.
#pragma once

#include <QFutureWatcher>
#include <QWidget>

#include "views/model_grid_data.hpp"

class ModelGridCanvas;
class QLabel;
class QSpinBox;
class Scene;

/// Shows every layer and head of the scene at a glance. Clicking a thumbnail (or using the
/// selectors) makes that layer the scene's layer — an undoable step — and that head the
/// selection's head, then asks for the heatmap grid (headActivated). Thumbnails are computed
/// on a worker thread while the view is visible; a newer scene replaces an older computation.
class ModelGrid : public QWidget {
    Q_OBJECT
  public:
    explicit ModelGrid(Scene* scene, QWidget* parent = nullptr);
    ~ModelGrid() override;

    /// Computes the thumbnails now, on this thread (headless rendering and tests).
    void refreshNow();
    const model_grid::Thumbnails& thumbnails() const;
    /// Opens (layer, head): sets the scene's layer through the undo stack and the selection.
    void openHead(int layer, int head);

  Q_SIGNALS:
    /// The user picked a head to look at closely: show the heatmap grid.
    void headActivated(int layer, int head);

  protected:
    void showEvent(QShowEvent* event) override;

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
    QFutureWatcher<model_grid::Thumbnails>* watcher_;
    bool dirty_ = true;
    bool rerun_ = false;  ///< the scene changed while a computation ran
};
