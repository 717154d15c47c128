// AttnScope — what the Heads tab draws: every head's visible region and its aggregated cells,
// computed by the scheduler, and the selection. GPL-3.0-or-later.
#pragma once

#include <QObject>
#include <QSize>
#include <QString>
#include <utility>
#include <vector>

#include "model/heatmap_viewport.hpp"
#include "model/scene_result.hpp"
#include "model/selection.hpp"
#include "model/weight_span.hpp"

/// The heatmap model of a grid of heads (no widget, no plot): the result, the aggregation, each
/// head's visible region (zoom) and the cells drawn for it, and the selection the heads outline.
/// A view asks for a head's cells at its pixel budget (update()); cells that touch more than
/// syncCells() source cells are computed by the scheduler's job kCellsJob (one per head, side
/// by side), and cellsReady() delivers them. Until then the head keeps its previous cells — a
/// streamed head its stored overview's coarse blocks ("refining"). Smaller ones (cheaper than a
/// frame, as ComputeService's small scenes) are computed at once.
class HeatmapModel : public QObject {
    Q_OBJECT
  public:
    /// The job computing one head's cells (named kCellsJob + ":" + head).
    static const QString kCellsJob;
    /// Source cells an update() computes at once (a 512-token head); larger ones by the job.
    static constexpr attn::Index kSyncCells = attn::Index(1) << 18;

    explicit HeatmapModel(QObject* parent = nullptr);
    ~HeatmapModel() override;

    /// Shows result (null: nothing). Regions are kept when the matrix keeps its shape; every
    /// head's cells are out of date, but stay what they were until recomputed.
    void setResult(SceneResultPtr result);
    const SceneResultPtr& result() const { return result_; }
    int headCount() const { return int(heads_.size()); }
    /// Queries and keys of head h (0 without one).
    attn::Index queries(int h) const;
    attn::Index keys(int h) const;

    void setAggregation(attn::Aggregation mode);
    attn::Aggregation aggregation() const { return mode_; }
    void setSelection(const Selection& selection) { selection_ = selection; }
    const Selection& selection() const { return selection_; }

    /// The visible region of head h (the whole matrix unless zoomed).
    const HeatmapViewport& region(int h) const;
    /// Shows region (clamped to the matrix) in head h; its cells are out of date.
    void setRegion(int h, const HeatmapViewport& region);
    void resetZoom(int h);

    /// Brings the cells of each (head, pixel budget) up to date: at once when all together
    /// touch at most syncCells() source cells, otherwise by jobs. True when every head's cells
    /// are current now (nothing pending).
    bool update(const std::vector<std::pair<int, QSize>>& wanted);
    /// True while a job computes head h's cells (the drawn ones are older or coarser).
    bool pending(int h) const;
    /// True while head h draws a streamed region's coarse overview blocks and a job computes
    /// the region's own (its title says "refining").
    bool refining(int h) const;
    /// The cells of head h as drawn, their span, and a counter that changes with them.
    const attn::AggregatedGrid& cells(int h) const;
    const WeightSpan& span(int h) const;
    quint64 cellsVersion(int h) const;
    /// Blocks until no job of the model runs, then delivers (the command line, figures, tests).
    void waitForCells();

    void setSyncCells(attn::Index cells) { syncCells_ = cells; }
    attn::Index syncCells() const { return syncCells_; }

  Q_SIGNALS:
    /// A job delivered head h's cells (or failed: its cells stay, no longer pending).
    void cellsReady(int head);

  private:
    struct Head {
        HeatmapViewport region;
        attn::AggregatedGrid cells;
        WeightSpan span;
        QSize factors;  ///< block factors the cells were computed for
        QSize budget;   ///< pixel budget they were computed for
        bool dirty = true;
        bool pending = false;
        bool refining = false;
        quint64 version = 0;
        quint64 job = 0;  ///< the newest job's number: an older delivery is dropped
    };
    bool valid(int h) const;
    QSize wantedFactors(const Head& head, const QSize& budget) const;
    /// Source cells computing head h's region at budget reads; sets fromOverview when the
    /// stored overview of a streamed head answers it.
    attn::Index cost(int h, const QSize& budget, bool* fromOverview) const;
    /// The overview blocks of a streamed head that stand for its region until the job ends.
    bool coarseFromOverview(int h, const QSize& budget);
    void computeNow(int h, const QSize& budget);
    void submit(int h, const QSize& budget);
    void store(int h, attn::AggregatedGrid cells, const QSize& budget);
    QString jobName(int h) const;

    SceneResultPtr result_;
    attn::Aggregation mode_ = attn::Aggregation::Max;
    Selection selection_;
    std::vector<Head> heads_;
    attn::Index syncCells_ = kSyncCells;
    quint64 jobs_ = 0;
};
