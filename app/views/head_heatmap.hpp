// AttnScope — one head's attention weights as a QCustomPlot colour map. GPL-3.0-or-later.
#pragma once

#include <QMargins>
#include <cmath>
#include <memory>

#include "model/scene_result.hpp"
#include "model/selection.hpp"
#include "views/heatmap_style.hpp"
#include "views/heatmap_viewport.hpp"
#include "views/qcp.hpp"
#include "views/weight_scale.hpp"

/// Queries on rows (top to bottom), keys on columns, token labels on both axes, a title with the
/// head's statistics. Draws only: it is given a result, a head index, a style and the selection.
/// When the matrix has more rows/columns than the plot has pixels it shows blocks (max or mean),
/// each exact for its block. The scroll wheel zooms about the cursor and a drag pans, down to
/// single labelled cells; only the visible region is computed (long, streamed scenes compute it
/// from Q and K, so no head is ever held n × n).
class HeadHeatmap : public QCustomPlot {
    Q_OBJECT
  public:
    explicit HeadHeatmap(QWidget* parent = nullptr);

    /// Shows head `head` of result (null clears). Call refresh() to draw.
    void setResult(SceneResultPtr result, int head);
    void setStyle(const HeatmapStyle& style);
    /// The colour range (shared by the grid, or this head's own from valueRange()).
    void setColorRange(const QCPRange& range);
    void setSelection(const Selection& selection);
    /// Shows a colour scale next to this head (per-head ranges) or not (the grid shows one).
    void setOwnColorScale(bool on);

    /// Recomputes the drawn cells for at most budget cells when needed (data, style or block
    /// factor changed). Touches no widget state, so the grid runs it for several heads in
    /// parallel before refresh().
    void prepare(const QSize& budget);
    /// Lays the plot out for its current size (so cellBudget() is exact) without drawing;
    /// the colour map area is shrunk and centred so that cells are square.
    void updateLayoutNow();
    /// Rebuilds the plot from the prepared cells and replots (queued widget update). A region of
    /// a streamed head finer than its stored overview and too large to compute at once is drawn
    /// from the overview's blocks first and refined by a scheduler job (kRegionJob).
    void refresh();
    /// Instead of prepare() and refresh() for a head scrolled out of view (or not shown yet):
    /// when its colour range is known without its cells — the maximum of the whole matrix on a
    /// linear scale, the largest weight its statistics hold — takes that range and defers the
    /// aggregation and the rebuild to its next paint (or ensureRefreshed()). A 512-token grid
    /// of 12 heads shows 2 to 4 at 1280 × 800. False (nothing deferred) otherwise.
    bool deferUntilSeen();
    /// Runs the refresh deferUntilSeen() put off (before drawing the head anywhere else).
    void ensureRefreshed();
    /// True while a finer region is being computed for the drawn one (the cells are coarse).
    bool refining() const { return refining_; }
    /// The scheduler job that computes fine zoom regions off the GUI thread.
    static const QString kRegionJob;
    /// Cells of a streamed head's region computed at once (zooming stays within ~10 ms); larger
    /// regions are computed by kRegionJob.
    static constexpr attn::Index kSyncRegionCells = attn::Index(1) << 21;

    /// The visible region (the whole matrix unless zoomed).
    const HeatmapViewport& region() const { return view_; }
    /// Shows region (clamped to the matrix); call refresh() to draw.
    void setRegion(const HeatmapViewport& region);
    /// Shows the whole matrix again.
    void resetZoom();

    int head() const { return head_; }
    const Selection& selection() const { return selection_; }
    /// The outline of the selected cell (visible when a query and a key are selected).
    QCPItemRect* selectedCellItem() const { return cellItem_; }
    /// The outline of the selected query's row.
    QCPItemRect* selectedRowItem() const { return rowItem_; }
    /// Every query whose row is outlined (each selected query, not only the primary one).
    std::vector<int> outlinedQueries() const;
    const SceneResultPtr& result() const { return result_; }
    QCPColorMap* colorMap() const { return map_; }
    QCPColorScale* colorScale() const { return scale_; }
    /// The cells as drawn (after aggregation).
    const attn::AggregatedGrid& cells() const { return cells_; }
    /// Range of the drawn values: [0, max] linear, [smallest positive ≥ max·1e-4, max] log.
    QCPRange valueRange(bool logScale) const;
    /// Hover text for query q, key k: tokens, raw and scaled score, weight.
    QString cellDescription(int query, int key) const;
    /// The same numbers on one plain line, for the grid's fixed readout.
    QString cellSummary(int query, int key) const;
    /// What the text under pos says (the tooltip there): a cell's numbers, a token label, the
    /// meaning of the title's statistics, or empty.
    QString toolTipAt(const QPoint& pos) const;
    /// What H, max and dist in the title mean.
    static QString statsExplanation();
    /// The title text (head number and statistics).
    QString titleText() const;
    /// Query/key under a widget position: {-1,-1} outside; key -1 left of the plot (row label),
    /// query -1 below it (column label).
    QPoint cellAt(const QPoint& pos) const;
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

  protected:
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;
    /// Answers tooltip requests itself: otherwise the grid's generic help replaced a cell's
    /// numbers once the mouse rested.
    bool event(QEvent* event) override;
    void leaveEvent(QEvent* event) override;

  private:
    /// The numbers of one cell (NaN where the result has no such stage).
    struct CellNumbers {
        QString query, key;  ///< the tokens
        double raw = std::nan(""), scaled = std::nan(""), weight = 0;
        bool masked = false;
    };
    bool cellNumbers(int query, int key, CellNumbers* out) const;
    void applyTheme();
    void rebuildTicks();
    void updateSelectionItems();
    void fillMap();
    /// The span of the drawn values, for valueRange (computed with the cells).
    void measureSpan();
    /// Replots now when any of the head is on screen, otherwise at its next paint.
    void replotWhenSeen();
    /// Block factors the current region needs for budget (cells are recomputed when they change).
    QSize wantedFactors(const QSize& budget) const;
    /// Number of queries and keys of the shown head (0 without one).
    attn::Index queries() const;
    attn::Index keys() const;
    void regionChanged();
    /// Whether the region at budget needs a computation from Q and K larger than
    /// kSyncRegionCells; then coarse receives the budget at which the stored overview answers.
    bool needsRegionJob(const QSize& budget, QSize* coarse) const;
    /// Submits kRegionJob for the drawn region (GUI thread); its result replaces the coarse
    /// cells if the region, result, budget and aggregation are still the same.
    void requestRegion();

    /// Minimum margins of the axes: a little room on the right keeps neighbours' labels apart.
    static constexpr QMargins kBaseMargins{0, 4, 12, 0};

    SceneResultPtr result_;
    QSize margins_;  ///< readableMargins(), invalid until measured
    int head_ = 0;
    HeatmapStyle style_;
    Selection selection_;
    QCPRange range_{0, 1};
    QSize budget_;  ///< budget the cells were prepared for
    bool cellsDirty_ = true;
    bool mapDirty_ = true;
    bool regionWanted_ = false;    ///< prepare() drew coarse cells: refresh() submits the job
    bool refining_ = false;        ///< kRegionJob is computing the drawn region
    bool regionDropped_ = false;   ///< prepare() drew at once while a job was computing
    bool replotPending_ = false;   ///< refreshed while off screen: replot at the next paint
    bool refreshPending_ = false;  ///< deferUntilSeen(): refresh at the next paint
    attn::AggregatedGrid cells_;
    WeightSpan span_;       ///< of cells_: largest, smallest positive, any zero
    QSize factors_;         ///< wantedFactors() the cells were prepared for
    HeatmapViewport view_;  ///< the visible region
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
