// AttnScope — the head census as a table in the Model tab. GPL-3.0-or-later.
#pragma once

#include <QImage>
#include <QWidget>
#include <vector>

#include "attn/analysis/census.hpp"

class LayerCache;
class QComboBox;
class QLabel;
class QTableWidget;
class Scene;
class WhileVisible;

/// The census of a scene and a thumbnail per head.
struct CensusData {
    attn::Census census;
    std::vector<QImage> thumbnails;  ///< layers·heads, row-major by layer
    QString error;                   ///< why there is no census (cross-attention, a failure)
};

/// One row per layer × head: thumbnail, layer, head, label and the six scores (docs/census.md).
/// Sortable by any column, filterable by pattern; double-clicking a row opens that head.
/// The scene's LayerCache computes it (off the GUI thread) while the table is visible.
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
    void resizeEvent(QResizeEvent* event) override;

  private:
    /// The note's wrapped height as its minimum: a splitter asks only minimumSizeHint, which
    /// knows nothing of word wrap, and would push the table's last rows out of sight.
    void fitNote();
    void onLayers();
    void onComputed(CensusData data);
    void applyFilter();

    Scene* scene_;
    QTableWidget* table_;
    QComboBox* filter_;
    QLabel* note_;
    CensusData data_;
    LayerCache* cache_;
    WhileVisible* refresh_;
};
