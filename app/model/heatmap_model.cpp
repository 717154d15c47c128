// AttnScope — what the Heads tab draws: every head's region and cells, computed by the
// scheduler. GPL-3.0-or-later.
#include "model/heatmap_model.hpp"

#include <algorithm>
#include <memory>

#include "model/scheduler.hpp"

const QString HeatmapModel::kCellsJob = QStringLiteral("heatmap-cells");

WeightSpan spanOf(const attn::AggregatedGrid& grid) {
    WeightSpan span;
    for (std::size_t i = 0; i < grid.values.size(); ++i) {
        if (grid.masked[i]) continue;
        const double v = grid.values[i];
        span.largest = std::max(span.largest, v);
        if (v > 0) span.smallestPositive = std::min(span.smallestPositive, v);
        span.hasZero = span.hasZero || v <= 0;
    }
    return span;
}

HeatmapModel::HeatmapModel(QObject* parent) : QObject(parent) {}

// The scheduler drops the deliveries of a destroyed owner; its workers hold only the result.
HeatmapModel::~HeatmapModel() = default;

bool HeatmapModel::valid(int h) const {
    return result_ && h >= 0 && h < int(heads_.size()) && h < int(result_->heads.size());
}

attn::Index HeatmapModel::queries(int h) const {
    return valid(h) ? result_->query_count() : 0;
}

attn::Index HeatmapModel::keys(int h) const {
    return valid(h) ? result_->key_count() : 0;
}

QString HeatmapModel::jobName(int h) const {
    return kCellsJob + QLatin1Char(':') + QString::number(h);
}

void HeatmapModel::setResult(SceneResultPtr result) {
    result_ = std::move(result);
    const int count = result_ ? int(result_->heads.size()) : 0;
    for (int h = 0; h < int(heads_.size()); ++h)
        if (heads_[std::size_t(h)].pending || h >= count)
            Scheduler::instance().cancel(this, jobName(h));
    heads_.resize(std::size_t(count));
    for (int h = 0; h < count; ++h) {
        Head& head = heads_[std::size_t(h)];
        if (head.region.n != queries(h) || head.region.m != keys(h))
            head.region.reset(queries(h), keys(h));
        head.dirty = true;
        head.pending = head.refining = false;
        head.job = ++jobs_;  // a delivery for the old result is dropped
    }
}

void HeatmapModel::setAggregation(attn::Aggregation mode) {
    if (mode == mode_) return;
    mode_ = mode;
    for (Head& head : heads_)
        head.dirty = true;
}

const HeatmapViewport& HeatmapModel::region(int h) const {
    static const HeatmapViewport none;
    return h >= 0 && h < int(heads_.size()) ? heads_[std::size_t(h)].region : none;
}

void HeatmapModel::setRegion(int h, const HeatmapViewport& region) {
    if (!valid(h)) return;
    HeatmapViewport v = region;
    v.n = queries(h);
    v.m = keys(h);
    v.rows = std::clamp<attn::Index>(v.rows, std::min<attn::Index>(v.n, 1), v.n);
    v.cols = std::clamp<attn::Index>(v.cols, std::min<attn::Index>(v.m, 1), v.m);
    v.row = std::clamp<attn::Index>(v.row, 0, v.n - v.rows);
    v.col = std::clamp<attn::Index>(v.col, 0, v.m - v.cols);
    Head& head = heads_[std::size_t(h)];
    if (v == head.region) return;
    head.region = v;
    head.dirty = true;
}

void HeatmapModel::resetZoom(int h) {
    HeatmapViewport whole;
    whole.reset(queries(h), keys(h));
    setRegion(h, whole);
}

QSize HeatmapModel::wantedFactors(const Head& head, const QSize& budget) const {
    return {attn::blockFactor(head.region.cols, budget.width()),
            attn::blockFactor(head.region.rows, budget.height())};
}

attn::Index HeatmapModel::cost(int h, const QSize& budget, bool* fromOverview) const {
    const attn::HeadResult& hr = result_->heads[std::size_t(h)];
    const attn::BlockSums& s = hr.overview;
    const HeatmapViewport& v = heads_[std::size_t(h)].region;
    *fromOverview = hr.streamed() && s.rows > 0 && s.cols > 0 &&
                    attn::blockFactor(v.rows, budget.height()) >= s.rowFactor &&
                    attn::blockFactor(v.cols, budget.width()) >= s.colFactor;
    // The stored overview answers with its own blocks; otherwise every cell of the region is
    // read (stored) or computed from Q and K (streamed).
    if (*fromOverview) return (v.rows / s.rowFactor + 1) * (v.cols / s.colFactor + 1);
    return v.rows * v.cols;
}

bool HeatmapModel::update(const std::vector<std::pair<int, QSize>>& wanted) {
    std::vector<std::pair<int, QSize>> todo;
    attn::Index work = 0;
    for (const auto& [h, budget] : wanted) {
        if (!valid(h)) continue;
        Head& head = heads_[std::size_t(h)];
        if (queries(h) == 0 || keys(h) == 0) {
            store(h, attn::AggregatedGrid{}, budget);
            continue;
        }
        if (head.region.n != queries(h) || head.region.m != keys(h))
            head.region.reset(queries(h), keys(h)), head.dirty = true;
        // Only a change of block factor (or of region, data, aggregation) needs new cells:
        // small resizes keep them, and a job under way computes these factors already.
        if (!head.dirty && wantedFactors(head, budget) == head.factors) continue;
        bool fromOverview = false;
        work += cost(h, budget, &fromOverview);
        todo.emplace_back(h, budget);
    }
    const bool now = work <= syncCells_;
    for (const auto& [h, budget] : todo)
        now ? computeNow(h, budget) : submit(h, budget);
    return std::none_of(wanted.begin(), wanted.end(),
                        [this](const auto& w) { return pending(w.first); });
}

void HeatmapModel::computeNow(int h, const QSize& budget) {
    Head& head = heads_[std::size_t(h)];
    if (head.pending) Scheduler::instance().cancel(this, jobName(h));
    head.job = ++jobs_;
    head.pending = head.refining = false;
    const HeatmapViewport& v = head.region;
    store(h,
          result_->drawn_blocks(h, v.row, v.rows, v.col, v.cols, budget.height(), budget.width(),
                                mode_),
          budget);
}

bool HeatmapModel::coarseFromOverview(int h, const QSize& budget) {
    const attn::HeadResult& hr = result_->heads[std::size_t(h)];
    const attn::BlockSums& s = hr.overview;
    if (!hr.streamed() || s.rows == 0 || s.cols == 0) return false;
    const HeatmapViewport& v = heads_[std::size_t(h)].region;
    // ⌈n / ⌊n / f⌋⌉ ≥ f: budgets at which every block is at least one stored block.
    const auto at = [](attn::Index n, int factor, int pixels) {
        return int(std::clamp<attn::Index>(n / factor, 1, std::max(1, pixels)));
    };
    const int rows = at(v.rows, s.rowFactor, budget.height());
    const int cols = at(v.cols, s.colFactor, budget.width());
    Head& head = heads_[std::size_t(h)];
    head.cells = result_->drawn_blocks(h, v.row, v.rows, v.col, v.cols, rows, cols, mode_);
    head.span = spanOf(head.cells);
    ++head.version;
    return true;
}

void HeatmapModel::submit(int h, const QSize& budget) {
    Head& head = heads_[std::size_t(h)];
    head.factors = wantedFactors(head, budget);
    head.budget = budget;
    head.dirty = false;
    head.pending = true;
    const quint64 job = head.job = ++jobs_;
    bool fromOverview = false;
    cost(h, budget, &fromOverview);
    // A streamed region finer than the overview is drawn from the overview's blocks meanwhile.
    head.refining = !fromOverview && coarseFromOverview(h, budget);
    struct Out {
        attn::AggregatedGrid cells;
        WeightSpan span;
    };
    const SceneResultPtr result = result_;
    const HeatmapViewport v = head.region;
    const attn::Aggregation mode = mode_;
    // A newer job for the head supersedes this one (same owner and name).
    Scheduler::instance().run(
        this, jobName(h),
        [result, h, v, budget, mode, fromOverview](attn::Progress& progress) {
            Out out;
            out.cells = fromOverview ? result->drawn_blocks(h, v.row, v.rows, v.col, v.cols,
                                                            budget.height(), budget.width(), mode)
                                     : result->weights_blocks(h, v.row, v.rows, v.col, v.cols,
                                                              budget.height(), budget.width(), mode,
                                                              &progress);
            out.span = spanOf(out.cells);
            return out;
        },
        [this, h, job, budget](Out out) {
            if (!valid(h) || heads_[std::size_t(h)].job != job) return;  // superseded since
            Head& head = heads_[std::size_t(h)];
            head.cells = std::move(out.cells);
            head.span = out.span;
            head.budget = budget;
            ++head.version;
            head.pending = head.refining = false;
            Q_EMIT cellsReady(h);
        },
        [this, h, job](const QString&) {
            if (!valid(h) || heads_[std::size_t(h)].job != job) return;
            Head& head = heads_[std::size_t(h)];
            // The cells drawn stay (not asked again: the same job would fail again).
            head.pending = head.refining = false;
            Q_EMIT cellsReady(h);
        });
}

void HeatmapModel::store(int h, attn::AggregatedGrid cells, const QSize& budget) {
    Head& head = heads_[std::size_t(h)];
    head.span = spanOf(cells);
    head.cells = std::move(cells);
    head.factors = wantedFactors(head, budget);
    head.budget = budget;
    head.dirty = false;
    ++head.version;
}

bool HeatmapModel::pending(int h) const {
    return h >= 0 && h < int(heads_.size()) && heads_[std::size_t(h)].pending;
}

bool HeatmapModel::refining(int h) const {
    return h >= 0 && h < int(heads_.size()) && heads_[std::size_t(h)].refining;
}

const attn::AggregatedGrid& HeatmapModel::cells(int h) const {
    static const attn::AggregatedGrid none;
    return h >= 0 && h < int(heads_.size()) ? heads_[std::size_t(h)].cells : none;
}

const WeightSpan& HeatmapModel::span(int h) const {
    static const WeightSpan none;
    return h >= 0 && h < int(heads_.size()) ? heads_[std::size_t(h)].span : none;
}

quint64 HeatmapModel::cellsVersion(int h) const {
    return h >= 0 && h < int(heads_.size()) ? heads_[std::size_t(h)].version : 0;
}

void HeatmapModel::waitForCells() {
    // A delivery may start another job (a head resized meanwhile): wait until none is pending.
    for (int pass = 0; pass < 64; ++pass) {
        const bool any = std::any_of(heads_.begin(), heads_.end(),
                                     [](const Head& head) { return head.pending; });
        if (!any) return;
        Scheduler::instance().waitForIdle(this);
    }
}
