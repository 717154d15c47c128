// AttnScope — every head of a result as a grid of heatmaps with one colour scale.
// GPL-3.0-or-later.
#pragma once

#include <QSize>
#include <QWidget>
#include <vector>

#include "model/heatmap_viewport.hpp"
#include "model/scene_result.hpp"
#include "model/selection.hpp"
#include "views/elided_label.hpp"
#include "views/heatmap_style.hpp"

class HeadHeatmap;
class HeatmapModel;
class QCustomPlot;
class QCPColorScale;
class QGridLayout;
class QLabel;
class QPaintDevice;
class ScrollFrame;

/// Lays out 1–16 (or more) heads readably for its size, heads of one key/value group together
/// (a gap and a label between groups); double-click focuses one head, Esc returns. Draws only:
/// give it a result, a style and the selection; its HeatmapModel computes the cells (a
/// scheduler job for large ones) and the heads paint what it delivers. Usable without a
/// MainWindow (the CLI renders it offscreen with render()/paintTo(), after waitForCells()).
class HeatmapGrid : public QWidget {
    Q_OBJECT
  public:
    explicit HeatmapGrid(QWidget* parent = nullptr);

    /// Shows every head of result and repaints (null shows an empty grid).
    void setResult(SceneResultPtr result);
    void setStyle(const HeatmapStyle& style);
    void setSelection(const Selection& selection);
    /// Shows region in head h (n = 0: its whole matrix) and draws it; false (nothing done)
    /// when the grid has no head h or its matrix is not region's n × m.
    bool setZoom(int head, const HeatmapViewport& region);
    /// Shows only head h (h < 0: all heads).
    void setFocusedHead(int head);
    int focusedHead() const { return focused_; }
    /// A message shown instead of the heads (e.g. a computation error); empty hides it.
    void setMessage(const QString& message);
    /// A note above the heads (e.g. what the synthetic scene is); empty hides it. Screen only.
    void setNote(const QString& note);
    /// The fixed line under the heads with the hovered cell's numbers (screen only).
    ElidedLabel* readout() const { return readout_; }
    QLabel* note() const { return note_; }

    const SceneResultPtr& result() const;
    /// The cells of every head, their regions and the selection.
    HeatmapModel* model() const { return model_; }
    /// Blocks until the cells of every drawn head are delivered and drawn (the command line,
    /// figures and tests; the window never waits).
    void waitForCells();
    /// The label above each key/value group's heads (empty without grouped-query attention).
    const std::vector<QLabel*>& groupLabels() const { return groupLabels_; }
    /// Pixels between two heads of one key/value group, and between two groups.
    static constexpr int kSpacing = 6;
    static constexpr int kGroupGap = 22;
    /// Pixels of cells a head keeps across when its key labels are thinned to use the width.
    static constexpr int kCompactAxis = 120;
    const HeatmapStyle& style() const { return style_; }
    int headCount() const { return int(heads_.size()); }
    HeadHeatmap* head(int h) const { return heads_.at(std::size_t(h)); }
    /// The shared colour range (when style().sharedRange).
    QCPRange sharedRange() const;
    /// The colour bar shared by every head (shown when style().sharedRange).
    QCPColorScale* colorScale() const { return scale_; }
    /// How many times every visible head was redrawn since construction (for tests/benches);
    /// a redraw whose cells a job computes counts when they are delivered.
    quint64 renderCount() const { return renders_; }

    /// Paints the visible heads and the colour scale onto device at their on-screen layout,
    /// scaled into target: vectors on SVG/PDF devices (QWidget::render would give pixels).
    void paintTo(QPaintDevice* device, const QRect& target);

  Q_SIGNALS:
    /// The user clicked a cell or a label (−1: unchanged), or moved with the keyboard.
    void selectionRequested(const Selection& selection);
    void focusedHeadChanged(int head);
    /// The user zoomed or panned a head (the view state records it).
    void zoomChanged(int head, const HeatmapViewport& region);
    /// Every visible head has been redrawn.
    void rendered();
    /// The menu of head HEAD's cell CELL (key, query; −1: a label or none) is asked for at
    /// GLOBAL: by a right click there, or by the Menu key for the selected head and cell.
    void headMenuRequested(int head, const QPoint& cell, const QPoint& global);

  protected:
    void resizeEvent(QResizeEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    /// How the visible heads are placed: columns, and the heads area's readable minimum
    /// (larger than the view: it scrolls).
    struct Arrangement {
        int columns = 0;
        int inner = 0;  ///< columns of one key/value group's block (grouped-query attention)
        QSize minimum;
        bool operator==(const Arrangement&) const = default;
    };
    void ensureHeads(int count);
    void relayout();
    /// Asks the model for the visible heads' cells; finishRedraw() once they are all there.
    void redraw();
    /// Colour ranges from the delivered cells, then every drawn head repaints.
    void finishRedraw();
    void onCellsReady(int head);
    /// Heads per key/value group as laid out (0: no groups shown).
    int groupSize() const;
    /// Places the visible heads in the layout (by groups, in blocks BLOCKWIDTH columns wide,
    /// when groupSize() > 1).
    void placeHeads(int columns, int blockWidth);
    /// Gives every visible head the same size (the slot, rounded down).
    void equalizeHeads();
    bool eventFilter(QObject* watched, QEvent* event) override;
    int visibleCount() const;
    Arrangement arrangementFor(int count) const;
    void onCellClicked(int head, int query, int key);
    /// Asks for the menu of the selected head and cell (the Menu key).
    void requestSelectedMenu();

    HeatmapModel* model_ = nullptr;
    HeatmapStyle style_;
    std::vector<int> waiting_;          ///< heads whose cells the redraw waits for
    std::vector<HeadHeatmap*> drawn_;   ///< heads the redraw draws (the rest when seen)
    std::vector<QLabel*> groupLabels_;  ///< "KV 1 · heads 1–4", one per group
    int focused_ = -1;
    int columns_ = 0;
    quint64 renders_ = 0;
    std::vector<HeadHeatmap*> heads_;
    QGridLayout* layout_ = nullptr;
    QWidget* headsArea_ = nullptr;
    ScrollFrame* frame_ = nullptr;  ///< scrolls the heads when they do not fit readably
    Arrangement arrangement_;
    QCustomPlot* scalePlot_ = nullptr;  ///< holds the shared colour scale
    QCPColorScale* scale_ = nullptr;
    QLabel* message_ = nullptr;
    ElidedLabel* note_ = nullptr;
    ElidedLabel* readout_ = nullptr;
};
