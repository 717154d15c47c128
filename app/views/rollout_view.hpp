// AttnScope — attention rollout across layers: a heatmap per layer and bars for one token.
// GPL-3.0-or-later.
#pragma once

#include <vector>

#include "views/attention_view.hpp"

class LayerCache;
class QLabel;
class QSpinBox;
class Scene;
class WhileVisible;

/// The rollout of the scene (every layer, docs/census.md).
struct RolloutData {
    std::vector<attn::MatrixD> layers;  ///< R_0 … R_{L−1}
    std::vector<std::string> tokens;    ///< words when the scene merges sub-words
    bool merged = false;                ///< layers are of words (each layer merged, then rolled)
    QString error;  ///< why there is none (cross-attention, a failed computation)
};

/// R_l as a heatmap (rows: output positions, columns: input tokens) for a chosen layer, and
/// beside it bars of how much each input token feeds the selected output token(s) (summed or
/// averaged). With SceneSpec::merge_words each layer is merged into words before the rollout.
/// The scene's LayerCache computes the layers (off the GUI thread) while the view is visible.
class RolloutView : public AttentionView {
    Q_OBJECT
  public:
    explicit RolloutView(Scene* scene, QWidget* parent = nullptr);

    /// Computes the rollout now, on this thread (headless rendering and tests).
    void refreshNow();
    const RolloutData& data() const { return data_; }
    /// The shown layer (default: the last) and its matrix as drawn (merged when asked).
    int layer() const;
    void setLayer(int layer);
    const attn::MatrixD& shownMatrix() const;
    /// Bar heights: the selected output tokens' combined row of the shown matrix.
    Eigen::RowVectorXd bars() const;
    QRect cellRect(int row, int column) const;
    /// The selected keys that are input tokens of the rollout, sorted.
    std::vector<int> selectedInputs() const;
    /// How much the selected inputs together feed the selected output(s): the sum or mean
    /// (Selection::sum) of their bars; 0 when either is missing.
    double selectedInputsFeed() const;
    /// The sentence under the bars about the selected inputs ("" when none).
    QString inputsSummary() const;
    /// The value under the pointer as a sentence ("" off the heatmap): the readout line and
    /// the tooltip.
    QString hoverText() const;
    /// Heatmap cell (column = input, row = output) under pos, or (−1, −1).
    QPoint cellAt(const QPoint& pos) const;
    /// Bar (input token) under pos, or −1.
    int barAt(const QPoint& pos) const;

  protected:
    void rebuild() override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    void onLayers();
    void onComputed(RolloutData data);
    std::vector<std::string> shownTokens() const;
    QRect heatRect() const;
    QRect barRect() const;

    Scene* scene_;
    /// Puts the hovered cell's sentence (or the hint) in the readout line.
    void showReadout();

    QSpinBox* layerBox_;
    QLabel* readout_;
    RolloutData data_;
    LayerCache* cache_;
    WhileVisible* refresh_;
    QPoint hovered_{-1, -1};  ///< (input, output) cell under the pointer
};
