// AttnScope — the "Loaded data" dock: component, layer and d_k of loaded attention, and which
// controls apply to it. GPL-3.0-or-later.
#pragma once

#include <QDockWidget>
#include <QHash>
#include <QSet>

class ControlsDock;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class Scene;

namespace fileio {

/// Shown while a file's attention is loaded. Raw scores: scaling (with this d_k), mask and
/// temperature act on them; the model's shape, score function, positions and seed come from the
/// file. Post-softmax weights are shown as they are: every scene control is disabled, with the
/// reason in its tooltip (applied after the controls dock syncs, so it has the last word).
class DataDock : public QDockWidget {
    Q_OBJECT
  public:
    DataDock(Scene* scene, ControlsDock* controls, QWidget* parent = nullptr);

    QComboBox* componentBox() const { return component_; }
    QSpinBox* layerBox() const { return layer_; }
    QSpinBox* headBox() const { return head_; }
    QDoubleSpinBox* dkBox() const { return dk_; }

  private:
    void sync();
    void applyControlState();
    void restrict(QWidget* control, bool allowed, const QString& reason);

    void onComponent(int index);
    void onLayer(int layer);
    void onHead(int head);
    void syncHead();
    void onDk(double dk);

    Scene* scene_;
    ControlsDock* controls_;
    QComboBox* component_;
    QSpinBox* layer_;
    QSpinBox* head_;
    QDoubleSpinBox* dk_;
    QLabel* note_;
    QHash<QWidget*, QString> originalTips_;
    QSet<QWidget*> disabledHere_;   ///< controls this dock disabled (to enable them again)
    QSet<QWidget*> managedByDock_;  ///< controls whose enabled state the controls dock sets
};

}  // namespace fileio
