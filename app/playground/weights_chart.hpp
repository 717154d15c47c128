// AttnScope — the playground's bar chart of the selected query's weights. GPL-3.0-or-later.
#pragma once

#include "model/playground_model.hpp"
#include "views/qcp.hpp"

/// α_ij of the selected query i, one bar per key, in key order or sorted (largest first).
/// Masked keys are labelled ×; the hard-attention sample is marked with a triangle.
class WeightsChart : public QCustomPlot {
    Q_OBJECT
  public:
    explicit WeightsChart(PlaygroundModel* model, QWidget* parent = nullptr);

    /// The bars (tests compare them with core's weights).
    QCPBars* bars() const { return bars_; }
    /// Key index shown at each bar position (identity unless sorted).
    const std::vector<int>& order() const { return order_; }
    /// Redraws from the model.
    void refresh();

  protected:
    void changeEvent(QEvent* event) override;

  private:
    PlaygroundModel* model_;
    QCPBars* bars_ = nullptr;
    QCPGraph* sample_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QSharedPointer<QCPAxisTickerText> ticks_;
    std::vector<int> order_;
};
