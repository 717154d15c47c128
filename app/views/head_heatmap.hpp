// AttnScope — one head's attention weights as a QCustomPlot colour map. GPL-3.0-or-later.
#pragma once

#include <QMargins>
#include <cmath>
#include <memory>

#include "model/heatmap_model.hpp"
#include "model/scene_result.hpp"
#include "model/selection.hpp"
#include "views/heatmap_style.hpp"
#include "views/qcp.hpp"
#include "views/weight_scale.hpp"

/// Queries on rows (top to bottom), keys on columns, token labels on both axes, a title with the
/// head's statistics. A thin view of head `head` of a HeatmapModel: it lays out, labels, zooms,
/// hovers and paints the cells the model delivers; it computes none. When the matrix has more
/// rows/columns than the plot has pixels the model's cells are blocks (max or mean), each exact
/// for its block. Ctrl+wheel zooms about the cursor (the plain wheel scrolls the heads) and a
/// drag pans, down to single labelled cells.
class HeadHeatmap : public QCustomPlot {
    Q_OBJECT
  public:
    /// Head `head` of model (which outlives the view).
    HeadHeatmap(HeatmapModel* model, int head, QWidget* parent = nullptr);

    /// The model shows a new result (old: the one shown before, or null): the label margins are
    /// measured again when the tokens changed. Call refresh() to draw.
    void resultChanged(const attn::SceneResult* old);
    void setStyle(const HeatmapStyle& style);
    /// The colour range (shared by the grid, or this head's own from valueRange()).
    void setColorRange(const QCPRange& range);
    /// The model's selection changed: the outlines follow.
    void selectionChanged();
    /// Shows a colour scale next to this head (per-head ranges) or not (the grid shows one).
    void setOwnColorScale(bool on);

    /// Lays the plot out for its current size (so cellBudget() is exact) without drawing;
    /// the colour map area is shrunk and centred so that cells are square.
    void updateLayoutNow();
    /// Asks the model for this head's cells at the current size (at once, or a job whose
    /// delivery refreshes the head again) and rebuilds the plot from the cells it holds, then
    /// replots (queued widget update).
    void refresh();
    /// Instead of refresh() for a head scrolled out of view (or not shown yet):
    /// when its colour range is known without its cells — the maximum of the whole matrix on a
    /// linear scale, the largest weight its statistics hold — takes that range and defers the
    /// aggregation and the rebuild to its next paint (or ensureRefreshed()). A 512-token grid
    /// of 12 heads shows 2 to 4 at 1280 × 800. False (nothing deferred) otherwise.
    bool deferUntilSeen();
    /// Runs the refresh deferUntilSeen() put off (before drawing the head anywhere else).
    void ensureRefreshed();
    /// True while a finer region is being computed for the drawn one (the cells are coarse).
    bool refining() const { return model_->refining(head_); }

    /// The visible region (the whole matrix unless zoomed).
    const HeatmapViewport& region() const { return model_->region(head_); }
    /// Shows region (clamped to the matrix); call refresh() to draw.
    void setRegion(const HeatmapViewport& region);
    /// Shows the whole matrix again.
    void resetZoom();

    int head() const { return head_; }
    const Selection& selection() const { return model_->selection(); }
    HeatmapModel* model() const { return model_; }
    /// The outline of the selected cell (visible when a query and a key are selected).
    QCPItemRect* selectedCellItem() const { return cellItem_; }
    /// The outline of the selected query's row.
    QCPItemRect* selectedRowItem() const { return rowItem_; }
    /// Every query whose row is outlined (each selected query, not only the primary one).
    std::vector<int> outlinedQueries() const;
    const SceneResultPtr& result() const { return model_->result(); }
    QCPColorMap* colorMap() const { return map_; }
    QCPColorScale* colorScale() const { return scale_; }
    /// The cells as drawn (after aggregation).
    const attn::AggregatedGrid& cells() const { return model_->cells(head_); }
    /// Range of the drawn values: [0, max] linear, [smallest positive ≥ max·1e-4, max] log.
    QCPRange valueRange(bool logScale) const;
    /// Hover text for query q, key k: tokens, raw and scaled score, weight.
    QString cellDescription(int query, int key) const;
    /// The same numbers on one plain line, for the grid's fixed readout.
    QString cellSummary(int query, int key) const;
    /// What the text under pos says (rich text): a cell's numbers, a token label, the meaning
    /// of the title's statistics, or empty.
    QString toolTipAt(const QPoint& pos) const;
    /// The same on one plain line, for the grid's readout (a cell: cellSummary()).
    QString readoutAt(const QPoint& pos) const;
    /// What H, max and dist in the title mean.
    static QString statsExplanation();
    /// The title text (head number and statistics).
    QString titleText() const;
    /// Query/key under a widget position: {-1,-1} outside; key -1 left of the plot (row label),
    /// query -1 below it (column label).
    QPoint cellAt(const QPoint& pos) const;
    /// The pixel at the centre of cell (QUERY, KEY) (this head's coordinates).
    QPoint cellCentre(int query, int key) const;
    /// Maximum number of cells per axis for the current size (pixels of the colour map area).
    QSize cellBudget() const;
    /// Query rows and key columns of the shown head (0 without a result).
    int rowCount() const;
    int columnCount() const;
    /// The smallest widget size at which every token is labelled (up to ~22 tokens a side;
    /// longer axes are thinned) and the title and labels fit: the grid scrolls below it.
    QSize readableSize();
    /// The room the title, token labels and colour scale take around the cells, with every
    /// token labelled (measured once per result by a layout pass).
    QSize readableMargins();

  Q_SIGNALS:
    /// A cell (or a row/column label: the other index is −1) was clicked.
    void cellClicked(int head, int query, int key);
    void headDoubleClicked(int head);
    /// The mouse is over cell (query, key) of this head; (−1, −1) when it left the cells.
    void cellHovered(int head, int query, int key);
    /// What the readout line says for the mouse's place (readoutAt; empty: it left the head).
    void hoverTextChanged(const QString& text);
    /// The user zoomed or panned head `head` to region (the wheel, a drag).
    void zoomed(int head, const HeatmapViewport& region);
    /// A right click asks for the menu of cell CELL (key, query; −1: a label or none) of this
    /// head, at GLOBAL.
    void menuRequested(int head, const QPoint& cell, const QPoint& global);

  protected:
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;
    /// Shows no tooltip (the readout line holds what is under the mouse) and keeps the grid's
    /// generic help from showing over a head.
    bool event(QEvent* event) override;
    void leaveEvent(QEvent* event) override;

  private:
    /// The numbers of one cell (NaN where the result has no such stage).
    struct CellNumbers {
        QString query, key;  ///< the tokens
        double raw = std::nan(""), scaled = std::nan(""), weight = 0;
        double softcapped = std::nan("");  ///< when the head soft-caps or adds a position bias
        bool masked = false;
    };
    bool cellNumbers(int query, int key, CellNumbers* out) const;
    void applyTheme();
    void rebuildTicks();
    void updateSelectionItems();
    void fillMap();
    /// Replots now when any of the head is on screen, otherwise at its next paint.
    void replotWhenSeen();
    /// Number of queries and keys of the shown head (0 without one).
    attn::Index queries() const { return model_->queries(head_); }
    attn::Index keys() const { return model_->keys(head_); }
    /// Shows v (a zoom or a pan) and draws it.
    void showRegion(const HeatmapViewport& v);

    /// Minimum margins of the axes: a little room on the right keeps neighbours' labels apart.
    static constexpr QMargins kBaseMargins{0, 4, 12, 0};

    HeatmapModel* model_;
    const int head_;
    QSize margins_;  ///< readableMargins(), invalid until measured
    HeatmapStyle style_;
    QCPRange range_{0, 1};
    quint64 filled_ = ~quint64(0);  ///< the model's cellsVersion() the map was filled from
    bool mapDirty_ = true;          ///< the log floor moved: fill the map again
    bool replotPending_ = false;    ///< refreshed while off screen: replot at the next paint
    bool refreshPending_ = false;   ///< deferUntilSeen(): refresh at the next paint
    HeatmapViewport dragFrom_;
    QPoint pressPos_;
    bool pressed_ = false, dragging_ = false;

    QCPColorMap* map_ = nullptr;
    QCPColorScale* scale_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPItemRect* rowItem_ = nullptr;
    QCPItemRect* cellItem_ = nullptr;
    std::vector<QCPItemRect*> otherRows_;  ///< the other selected queries' outlines
    QSharedPointer<QCPAxisTickerText> xTicks_, yTicks_;
};
