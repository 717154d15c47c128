// AttnScope — BertViz's neuron view: q_i, k_j and q_i ⊙ k_j as colour strips. GPL-3.0-or-later.
#pragma once

#include "views/attention_view.hpp"

/// For the selected query i of the focused head: q_i on top, then one row per key j with k_j
/// and q_i ⊙ k_j as diverging colour strips over the d_k dimensions (blue < 0 < red), beside
/// the raw score s = Σ q ⊙ k and the weight. Needs query and key vectors (computed scenes, or
/// loaded files with q/k); otherwise it says so. Vectors are per token: it ignores word merging.
class NeuronView : public AttentionView {
    Q_OBJECT
  public:
    explicit NeuronView(QWidget* parent = nullptr);

    /// The vectors of key row j as drawn (query and head from the selection).
    attn::NeuronVectors row(int key) const;
    /// The strip rectangles of key row j: k_j and the product.
    QRect keyStrip(int key) const;
    QRect productStrip(int key) const;
    /// Why nothing is drawn (empty when the view draws).
    QString message() const;

    QSize sizeHint() const override;

  protected:
    void rebuild() override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

  private:
    int keys() const;
    int query() const;
    /// The selected queries inside the result (the primary one alone, or several).
    std::vector<attn::Index> queries() const;
    int stripWidth() const;
    std::vector<attn::NeuronVectors> rows_;
    float vecMax_ = 1, prodMax_ = 1;
};
