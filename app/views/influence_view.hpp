// AttnScope — the Influence tab: what each token contributed to one prediction, by every
// attribution method, beside where attention looked (issue #39). GPL-3.0-or-later.
#pragma once

#include <QWidget>

class CellMap;
class InfluenceModel;
class InfluenceStrips;
class QComboBox;
class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTimer;
class Scene;
class WhileVisible;

/// Draws the scene's InfluenceModel: the top 5 of every position (a click picks the target),
/// one strip per method and the selected head's attention row, per-head attention × gradient,
/// the faithfulness curves against random orders, the agreement matrix and the methods' notes.
/// Each panel has an Export… button (exportRequested). Computes nothing itself: the model's
/// jobs run while the tab is visible.
class InfluenceView : public QWidget {
    Q_OBJECT
  public:
    explicit InfluenceView(Scene* scene, QWidget* parent = nullptr);

    /// The panels, by key: "picker", "strips", "heads", "faithfulness", "agreement".
    QWidget* panel(const QString& key) const;
    /// The key of a panel (or of a widget inside one), "" for none.
    static QString panelKey(const QWidget* widget);
    InfluenceModel* model() const { return model_; }
    CellMap* picker() const { return picker_; }
    InfluenceStrips* strips() const { return strips_; }
    CellMap* headMap() const { return headMap_; }
    CellMap* pairMap() const { return pairMap_; }
    QCustomPlot* faithPlot() const { return plot_; }
    CellMap* agreementMap() const { return agreement_; }
    QTabWidget* pages() const { return pages_; }
    QLabel* status() const { return status_; }
    QLabel* note() const { return note_; }
    QProgressBar* progress() const { return progress_; }
    QPushButton* cancelButton() const { return cancel_; }
    QPushButton* computeButton() const { return compute_; }
    QPushButton* measureButton() const { return measure_; }
    QSpinBox* stepsBox() const { return steps_; }
    QSpinBox* erasuresBox() const { return erasures_; }
    /// Encoder, Decoder or Cross: the part of an encoder–decoder's run in the per-head maps
    /// (shown only for one).
    QComboBox* componentBox() const { return component_; }
    /// The hover text of the faithfulness plot at POS (plot coordinates): the nearest point.
    QString curveTip(const QPoint& pos) const;

  Q_SIGNALS:
    /// The user asked to export PANEL (its figure and numbers), its file named after NAME.
    void exportRequested(QWidget* panel, const QString& name);

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    QWidget* makePanel(const QString& key, QWidget* figure, QWidget* controls = nullptr);
    void showResult();
    void showHead();
    void showFaithfulness();
    void showState();

    Scene* scene_;
    InfluenceModel* model_;
    CellMap* picker_;
    InfluenceStrips* strips_;
    CellMap* headMap_;
    CellMap* pairMap_;
    QCustomPlot* plot_;
    CellMap* agreement_;
    QTabWidget* pages_;
    QLabel *status_, *note_, *faithNote_;
    QProgressBar* progress_;
    QPushButton *cancel_, *compute_, *measure_;
    QSpinBox *steps_, *erasures_;
    QComboBox* component_;
    QTimer* poll_;
    WhileVisible* visible_;
};
