// AttnScope — the Batch tab's panels of an attribute batch: the averaged erasure curves, the
// mean agreement between the methods, and one example's scores per token. Drawing only.
// GPL-3.0-or-later.
#pragma once

#include <QWidget>

class BatchDocument;
class BatchView;
class CellMap;
class InfluenceStrips;
class QComboBox;
class QCustomPlot;
class QLabel;

/// Three panels over the BatchDocument's attribution, each with the Batch tab's Export…:
/// - "batch-faithfulness": per method the mean logit with its top k tokens erased (k = 0 … K)
///   over the examples, a band of ± one standard deviation around it; hover: the nearest point's
///   mean ± sd and n;
/// - "batch-agreement": the mean Kendall τ-b of each pair of methods, "NaN" where no example
///   defines it; hover: mean ± sd over the examples that define it;
/// - "batch-tokens": the chosen example's scores per token, one strip per method, its explained
///   position outlined; hover: the number.
class BatchAttributionView : public QWidget {
    Q_OBJECT
  public:
    BatchAttributionView(BatchDocument* document, BatchView* owner);

    QCustomPlot* faithPlot() const { return plot_; }
    CellMap* agreementMap() const { return agreement_; }
    InfluenceStrips* strips() const { return strips_; }
    QComboBox* exampleBox() const { return example_; }
    QWidget* faithPanel() const { return faithPanel_; }
    QWidget* agreementPanel() const { return agreementPanel_; }
    QWidget* tokensPanel() const { return tokensPanel_; }
    /// The hover text of the curves at POS (plot coordinates): the nearest mean point.
    QString curveTip(const QPoint& pos) const;
    /// The hover text of agreement cell (A, B).
    QString agreementTip(int a, int b) const;
    /// Shows the open result's attribution (nothing when it has none).
    void showResult();

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void showCurves();
    void showAgreement();
    void showExample();

    BatchDocument* doc_;
    QCustomPlot* plot_;
    CellMap* agreement_;
    InfluenceStrips* strips_;
    QComboBox* example_;
    QLabel *faithHeading_ = nullptr, *agreementHeading_ = nullptr, *tokensHeading_ = nullptr;
    QWidget *faithPanel_, *agreementPanel_, *tokensPanel_;
};
