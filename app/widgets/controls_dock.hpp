// AttnScope — the dock with every scene control, all live (no Apply button). GPL-3.0-or-later.
#pragma once

#include <QDockWidget>
#include <QHash>

#include "attn/scene/scene.hpp"
#include "views/heatmap_style.hpp"

class Scene;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLayout;
class QLineEdit;
class QSlider;
class QSpinBox;
class QToolButton;
class QGroupBox;
class QFormLayout;

/// Edits the Scene and the view state's heatmap style (model/view_state.hpp) through undoable
/// commands; follows both (undo, loading, a session) without echoing edits back.
class ControlsDock : public QDockWidget {
    Q_OBJECT
  public:
    explicit ControlsDock(Scene* scene, QWidget* parent = nullptr);

    /// Sets the view state's style (no undo step); the controls and the views follow it.
    void applyStyle(const HeatmapStyle& style);
    /// The view state's style (what the display controls show).
    HeatmapStyle style() const;

    // The controls, for tests and for shortcuts.
    QComboBox* scoreBox() const { return score_; }
    QCheckBox* scaleBox() const { return scale_; }
    QDoubleSpinBox* sigmaBox() const { return sigma_; }
    QDoubleSpinBox* temperatureBox() const { return temperature_; }
    QSlider* temperatureSlider() const { return temperatureSlider_; }
    QComboBox* maskBox() const { return mask_; }
    QSpinBox* windowBox() const { return window_; }
    QSpinBox* paddingBox() const { return padding_; }
    QLineEdit* globalBox() const { return global_; }
    QComboBox* headsBox() const { return heads_; }
    QSpinBox* dModelBox() const { return dModel_; }
    QComboBox* positionalBox() const { return positional_; }
    QSpinBox* seedBox() const { return seed_; }
    QComboBox* colorMapBox() const { return colorMap_; }
    QCheckBox* logScaleBox() const { return logScale_; }
    QCheckBox* sharedRangeBox() const { return sharedRange_; }
    QComboBox* aggregationBox() const { return aggregation_; }
    /// While a model runs: where scaling, mask and temperature apply (all layers, or one).
    QComboBox* scopeBox() const { return scope_; }
    /// While a rotary-family model runs: rotary positions off in the scoped layers.
    QCheckBox* rotaryOffBox() const { return rotaryOff_; }
    /// While a soft-capping model (Gemma 2) runs: its soft-capping off in the scoped layers.
    QCheckBox* softcapOffBox() const { return softcapOff_; }

  protected:
    /// Measures the dock's minimum width once the controls are polished.
    void showEvent(QShowEvent* event) override;

  private:
    /// Keeps the dock at least as wide as its widest control.
    void fitWidth();
    QWidget* buildScoreGroup();
    QWidget* buildMaskGroup();
    QWidget* buildModelGroup();
    QWidget* buildDisplayGroup();
    void syncFromScene();
    /// Enables each control by attn::control_state — the one rule of which controls apply to
    /// the scene — with the reason in its tooltip when it does not.
    void applyControlStates(const attn::SceneSpec& spec);
    /// Shows "—" in w (combo, spin box, line edit; a partly ticked box) when nothing of it is in
    /// force, else its own value back.
    void showDash(QWidget* w, bool dash);
    /// The synthetic model's own rows, titled so and hidden while data is loaded.
    void markSyntheticOnly(const attn::SceneSpec& spec);
    void onScore(int index);
    void onScale(bool on);
    void onSigma(double sigma);
    void onTemperature(double tau);
    void onTemperatureSlider(int position);
    void onMask(int index);
    void onWindow(int window);
    void onPadding(int count);
    void onGlobal();
    void onHeads(int index);
    void onDModel(int d);
    void onPositional(int index);
    void onSeed(int seed);
    void onStyleEdited();
    /// Shows style in the display controls without echoing it back as an edit.
    void showStyle(const HeatmapStyle& style);
    void onScope(int index);
    void onRotaryOff(bool off);
    void onSoftcapOff(bool off);
    /// The scope box's layers and choice from the scene; the row shows only with a model.
    void syncScope(const attn::SceneSpec& spec);

    Scene* scene_;
    QComboBox* score_ = nullptr;
    QCheckBox* scale_ = nullptr;
    QDoubleSpinBox* sigma_ = nullptr;
    QDoubleSpinBox* temperature_ = nullptr;
    QSlider* temperatureSlider_ = nullptr;
    QComboBox* mask_ = nullptr;
    QSpinBox* window_ = nullptr;
    QSpinBox* padding_ = nullptr;
    QLineEdit* global_ = nullptr;
    QComboBox* heads_ = nullptr;
    QSpinBox* dModel_ = nullptr;
    QComboBox* positional_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QToolButton* newSeed_ = nullptr;
    QComboBox* colorMap_ = nullptr;
    QCheckBox* logScale_ = nullptr;
    QCheckBox* sharedRange_ = nullptr;
    QComboBox* aggregation_ = nullptr;
    QGroupBox* modelGroup_ = nullptr;
    QComboBox* scope_ = nullptr;
    QCheckBox* rotaryOff_ = nullptr;
    QCheckBox* softcapOff_ = nullptr;
    QFormLayout* scoreForm_ = nullptr;
    QHash<QWidget*, QString> baseSpecialText_;  ///< spin boxes' special text, edits' placeholder
    QLayout* seedRow_ = nullptr;
    QHash<QWidget*, QString> baseTips_;  ///< each control's own tooltip, without a reason
};
