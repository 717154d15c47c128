// AttnScope — the Batch tab: a batch result's mean map per head with each head's spread, the
// census across the corpus, and the examples sorted by effect. Drawing only. GPL-3.0-or-later.
#pragma once

#include <QWidget>

class BatchAttributionView;
class BatchDocument;
class CellMap;
class QComboBox;
class QLabel;
class QTableWidget;
class QToolButton;

/// Three panels over the BatchDocument, each with its own Export… button (exportRequested):
/// - the map: the chosen quantity's mean per layer × head (diverging) beside its standard
///   deviation; hovering a head reads "mean ± sd, n = count"; clicking one sorts the examples
///   by it;
/// - the census (when the result holds one): per head the label most examples give it and how
///   often it wins, or the mean of one pattern's score; hovering reads every mean score and
///   every label's wins;
/// - the examples, from the largest effect to the smallest (by the chosen head, or the total
///   over the heads); clicking one emits exampleActivated.
/// An attribute batch shows BatchAttributionView's three panels instead.
class BatchView : public QWidget {
    Q_OBJECT
  public:
    explicit BatchView(BatchDocument* document, QWidget* parent = nullptr);

    BatchDocument* document() const { return doc_; }
    QLabel* caption() const { return caption_; }
    /// A line about the last example opened (its run, or why it could not open).
    QLabel* status() const { return status_; }
    void setStatus(const QString& text, bool warning = false);
    CellMap* meanMap() const { return mean_; }
    CellMap* sdMap() const { return sd_; }
    CellMap* censusMap() const { return census_; }
    QComboBox* quantityBox() const { return quantity_; }
    QComboBox* sortBox() const { return sort_; }
    QComboBox* censusBox() const { return censusShow_; }
    QTableWidget* list() const { return list_; }
    /// The panels (what their Export… buttons export) and their names.
    QWidget* mapPanel() const { return mapPanel_; }
    QWidget* censusPanel() const { return censusPanel_; }
    QWidget* examplesPanel() const { return examplesPanel_; }
    static QString panelName(QWidget* panel);
    /// An attribute batch's panels (hidden for other analyses).
    BatchAttributionView* attribution() const { return attribution_; }
    /// A panel: TITLE in bold (its label in *HEADING) over BODY, with an Export… button that
    /// emits exportRequested(panel, KEY).
    QWidget* panel(const QString& title, QWidget* body, QLabel** heading, const QString& key);
    /// The hover text of head (LAYER, HEAD) of the mean map (also the sd map's).
    QString headTip(int layer, int head) const;
    /// The hover text of head (LAYER, HEAD) of the census map.
    QString censusTip(int layer, int head) const;
    /// The title exports give a figure of this view: file · analysis · examples.
    QString figureTitle() const;
    /// The BatchView a panel or widget belongs to (nullptr for none).
    static BatchView* of(QWidget* widget);

  Q_SIGNALS:
    /// The user clicked the example INDEX (0 … E−1) in the list.
    void exampleActivated(int index);
    /// The user asked to export PANEL (one of the three), named NAME ("batch-map", …).
    void exportRequested(QWidget* panel, const QString& name);

  private:
    void showResult();
    void showQuantity();
    void showCensus();
    void showSort();

    BatchDocument* doc_;
    QLabel* caption_;
    QLabel* status_;
    QComboBox* quantity_;
    QLabel* quantityLabel_ = nullptr;
    CellMap* mean_;
    CellMap* sd_;
    CellMap* census_;
    QComboBox* censusShow_;
    QComboBox* sort_;
    QTableWidget* list_;
    QLabel* mapHeading_ = nullptr;
    QLabel* censusHeading_ = nullptr;
    QLabel* listHeading_ = nullptr;
    QWidget* mapPanel_;
    QWidget* censusPanel_;
    QWidget* examplesPanel_;
    QWidget* split_ = nullptr;
    BatchAttributionView* attribution_ = nullptr;
};
