// AttnScope — the "Model" dock: the open GPT-2 model, its layer and head, and its next-token
// prediction. GPL-3.0-or-later.
#pragma once

#include <QDockWidget>

#include "model/scene_result.hpp"

class NextTokensView;
class QLabel;
class QSpinBox;
class QTableWidget;
class QVBoxLayout;
class Scene;

namespace fileio {

/// attn::model::model_name for a QString folder.
QString modelName(const QString& dir);

/// Shown while a model runs: which model, the layer and head on show (the Heads tab shows one
/// layer), and the top 10 next tokens of the last delivered run.
class ModelDock : public QDockWidget {
    Q_OBJECT
  public:
    explicit ModelDock(Scene* scene, QWidget* parent = nullptr);

    QSpinBox* layerBox() const { return layer_; }
    QSpinBox* headBox() const { return head_; }
    NextTokensView* nextTokens() const { return next_; }
    /// A mixture of experts' routing in the shown layer (Mixtral): a row per position, its
    /// chosen experts best first with their weights; hidden for a dense model.
    QTableWidget* routerTable() const { return router_; }
    /// What the model is (family, layers, query/KV heads, parameters, dtype).
    QString aboutText() const;
    /// The predictions' title: "Next token after …" or, for a [MASK], "Fill-mask at …".
    QString predictionTitle() const;
    /// Shows the prediction of result (a model scene's; others clear it).
    void setResult(const SceneResultPtr& result);
    /// The scene on show could not be computed (MESSAGE says why): no prediction is shown.
    void setFailed(const QString& message);
    /// Adds PANEL (e.g. Generate) under the prediction, inside the dock's scrolled column.
    void addPanel(QWidget* panel);

  private:
    void sync();
    void syncHead();
    /// Fills and shows the router table from RESULT's run at the shown layer, or hides it.
    void showRouting(const attn::SceneResult& result);

    Scene* scene_;
    QLabel* about_;
    QSpinBox* layer_;
    QSpinBox* head_;
    QLabel* after_;
    NextTokensView* next_;
    QTableWidget* router_;
    QVBoxLayout* column_ = nullptr;
    /// The model the prediction on show (or the reason for none) is about.
    std::shared_ptr<const attn::model::ModelFolder> predicted_;
};

}  // namespace fileio
