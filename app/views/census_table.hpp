// AttnScope — the head census as a table in the Model tab. GPL-3.0-or-later.
#pragma once

#include <QImage>
#include <QWidget>
#include <vector>

#include "attn/census.hpp"

class QComboBox;
class QLabel;
class QTableWidget;
class Scene;

/// The census of a scene and a thumbnail per head.
struct CensusData {
    attn::Census census;
    std::vector<QImage> thumbnails;  ///< layers·heads, row-major by layer
    QString error;                   ///< why there is no census (cross-attention, a failure)
};

/// One row per layer × head: thumbnail, layer, head, label and the six scores (docs/census.md).
/// Sortable by any column, filterable by pattern; double-clicking a row opens that head.
/// Computed off the GUI thread when the scene changes while the table is visible.
class CensusTable : public QWidget {
    Q_OBJECT
  public:
    explicit CensusTable(Scene* scene, QWidget* parent = nullptr);

    /// Computes now, on this thread (headless rendering and tests).
    void refreshNow();
    const CensusData& data() const { return data_; }
    QTableWidget* table() const { return table_; }
    QComboBox* filterBox() const { return filter_; }
    /// Rows shown (after the filter).
    int visibleRows() const;

  Q_SIGNALS:
    /// The user double-clicked the row of (layer, head).
    void headActivated(int layer, int head);

  protected:
    void showEvent(QShowEvent* event) override;

  private:
    void onSpecChanged();
    void onComputed(CensusData data);
    void applyFilter();

    Scene* scene_;
    QTableWidget* table_;
    QComboBox* filter_;
    QLabel* note_;
    CensusData data_;
    bool dirty_ = true;
};
