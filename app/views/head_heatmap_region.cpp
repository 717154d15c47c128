// AttnScope — fine zoom regions of a streamed head, computed off the GUI thread.
// GPL-3.0-or-later.
#include <algorithm>

#include "model/scheduler.hpp"
#include "views/head_heatmap.hpp"

const QString HeadHeatmap::kRegionJob = QStringLiteral("heatmap-region");

bool HeadHeatmap::needsRegionJob(const QSize& budget, QSize* coarse) const {
    const attn::HeadResult& head = result_->heads[std::size_t(head_)];
    const attn::BlockSums& s = head.overview;
    if (!head.streamed() || s.rows == 0 || s.cols == 0) return false;
    // The stored overview answers at its own block factors or coarser (drawn_blocks).
    const bool fromOverview = attn::blockFactor(view_.rows, budget.height()) >= s.rowFactor &&
                              attn::blockFactor(view_.cols, budget.width()) >= s.colFactor;
    if (fromOverview || view_.rows * view_.cols <= kSyncRegionCells) return false;
    // ⌈n / ⌊n / f⌋⌉ ≥ f: budgets at which every block is at least one stored block.
    const auto at = [](attn::Index n, int factor, int pixels) {
        return int(std::clamp<attn::Index>(n / factor, 1, std::max(1, pixels)));
    };
    *coarse = QSize(at(view_.cols, s.colFactor, budget.width()),
                    at(view_.rows, s.rowFactor, budget.height()));
    return true;
}

void HeadHeatmap::requestRegion() {
    regionWanted_ = false;
    refining_ = true;
    const SceneResultPtr result = result_;
    const int head = head_;
    const HeatmapViewport v = view_;
    const QSize budget = budget_;
    const attn::Aggregation mode = style_.aggregation;
    // A newer region of this heatmap supersedes the job (same owner and name).
    Scheduler::instance().run(
        this, kRegionJob,
        [result, head, v, budget, mode](attn::Progress& progress) {
            return result->weights_blocks(head, v.row, v.rows, v.col, v.cols, budget.height(),
                                          budget.width(), mode, &progress);
        },
        [this, result, head, v, budget, mode](attn::AggregatedGrid grid) {
            if (result != result_ || head != head_ || !(v == view_) || budget != budget_ ||
                mode != style_.aggregation)
                return;  // drawn something else since
            refining_ = false;
            cells_ = std::move(grid);
            mapDirty_ = true;
            refresh();
        },
        [this](const QString&) {
            refining_ = false;  // the coarse cells stay; the title no longer says "refining"
            refresh();
        });
}
