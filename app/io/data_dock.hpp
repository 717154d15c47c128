// AttnScope — the "Loaded data" dock: component, layer, head and d_k of loaded attention.
// GPL-3.0-or-later.
#pragma once

#include <QDockWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class Scene;

namespace fileio {

/// Shown while a file's attention is loaded. Raw scores: scaling (with this d_k), mask and
/// temperature act on them; the model's shape, score function, positions and seed come from the
/// file. Which scene controls apply is the controls dock's business alone (attn::control_state).
class DataDock : public QDockWidget {
    Q_OBJECT
  public:
    explicit DataDock(Scene* scene, QWidget* parent = nullptr);

    QComboBox* componentBox() const { return component_; }
    QSpinBox* layerBox() const { return layer_; }
    QSpinBox* headBox() const { return head_; }
    QDoubleSpinBox* dkBox() const { return dk_; }
    /// "Merge sub-words into words" (SceneSpec::merge_words): real tokenisers' pieces.
    QCheckBox* mergeWordsBox() const { return mergeWords_; }

  private:
    void sync();
    void onComponent(int index);
    void onLayer(int layer);
    void onHead(int head);
    void syncHead();
    void onDk(double dk);

    Scene* scene_;
    QComboBox* component_;
    QSpinBox* layer_;
    QSpinBox* head_;
    QDoubleSpinBox* dk_;
    QLabel* note_;
    QCheckBox* mergeWords_;
};

}  // namespace fileio
