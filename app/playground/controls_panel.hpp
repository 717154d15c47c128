// AttnScope — the playground's own controls. GPL-3.0-or-later.
#pragma once

#include <QWidget>
#include <functional>

#include "model/playground_model.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;
class QPushButton;

/// Score function (with its 2×2 W and σ), scaling with "as if d_k = N", temperature, the
/// hard-attention sample, layout and editing options, and the presets. Every change is an
/// undoable edit of the model.
class ControlsPanel : public QWidget {
    Q_OBJECT
  public:
    explicit ControlsPanel(PlaygroundModel* model, QWidget* parent = nullptr);
    /// Shows the model's values (without emitting edits).
    void refresh();

    QComboBox* presetBox() const { return preset_; }
    QComboBox* scoreBox() const { return score_; }
    QCheckBox* scaleBox() const { return scale_; }
    QSpinBox* asIfDkBox() const { return asIf_; }
    QDoubleSpinBox* temperatureBox() const { return tau_; }

  Q_SIGNALS:
    /// "Fit view" was pressed.
    void fitRequested();

  private:
    void edit(const QString& what, int mergeId,
              const std::function<void(attn::PlaygroundState&)>& f);

    PlaygroundModel* model_;
    QComboBox* preset_ = nullptr;
    QComboBox* score_ = nullptr;
    QDoubleSpinBox* w_[4] = {};
    QDoubleSpinBox* sigma_ = nullptr;
    QCheckBox* scale_ = nullptr;
    QSpinBox* asIf_ = nullptr;
    QDoubleSpinBox* tau_ = nullptr;
    QCheckBox* hard_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QCheckBox* overlay_ = nullptr;
    QCheckBox* snap_ = nullptr;
    QDoubleSpinBox* grid_ = nullptr;
    QCheckBox* sorted_ = nullptr;
};
