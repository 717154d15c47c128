// AttnScope — how the heatmap grid places its heads: columns, equal slots, key/value groups.
// GPL-3.0-or-later.
#include <QEvent>
#include <QGridLayout>
#include <QLabel>
#include <QScrollBar>
#include <algorithm>
#include <vector>

#include "model/heatmap_model.hpp"
#include "views/head_heatmap.hpp"
#include "views/heatmap_grid.hpp"
#include "views/scroll_frame.hpp"

namespace heatmap_grid_layout {

/// Rows of heads, gap columns per row and label rows of count heads in `columns` columns,
/// groups of `group` heads (≤ 1: no groups) in blocks `inner` columns wide: a block holds a
/// group whole, wrapped over rows when inner < group, and blocks sit side by side.
struct Shape {
    int rows = 0, gaps = 0, labels = 0;
};

Shape shapeOf(int count, int columns, int group, int inner) {
    if (group <= 1) return {(count + columns - 1) / columns, 0, 0};
    const int groups = std::max(1, count / group), perRow = std::max(1, columns / inner);
    const int blockRows = (groups + perRow - 1) / perRow, groupRows = (group + inner - 1) / inner;
    return {blockRows * groupRows, perRow - 1, blockRows};
}

/// The block widths `columns` columns can hold groups of `group` heads in (count heads in all),
/// the most natural first: whole groups side by side, or one group wrapped over the columns;
/// then narrower blocks side by side (Qwen's groups of 7 as two blocks of 2 columns).
std::vector<int> blockWidths(int count, int columns, int group) {
    if (group <= 1) return {columns};
    const int groups = std::max(1, count / group);
    std::vector<int> out;
    for (int inner = std::min(group, columns); inner >= 1; --inner)
        if (columns % inner == 0 && columns / inner <= groups) out.push_back(inner);
    return out;
}

}  // namespace heatmap_grid_layout

using heatmap_grid_layout::Shape;
using heatmap_grid_layout::shapeOf;

int HeatmapGrid::groupSize() const {
    const SceneResultPtr& r = result();
    if (!r || focused_ >= 0 || heads_.empty()) return 0;
    const auto heads = attn::Index(r->heads.size());
    const attn::Index groups = r->kv_group_count();
    return groups > 0 && groups < heads ? int(heads / groups) : 0;
}

namespace {

/// The height a group's label row takes (its text and the spacing below it).
int labelRowHeight(const QWidget* grid) {
    return grid->fontMetrics().height() + 2 + HeatmapGrid::kSpacing;
}

/// The slot of one head when count heads in `columns` columns (blocks `inner` wide) share area.
QSize slotIn(const QSize& area, int count, int columns, int group, int inner, int labelRow) {
    const int sp = HeatmapGrid::kSpacing;
    const Shape s = shapeOf(count, columns, group, inner);
    const int w =
        (area.width() - (columns - 1) * sp - s.gaps * (HeatmapGrid::kGroupGap + sp)) / columns;
    const int h = (area.height() - (s.rows - 1) * sp - s.labels * labelRow) / std::max(1, s.rows);
    return {w, h};
}

/// The size of count heads of size least in `columns` columns (blocks `inner` wide).
QSize sizeOf(const QSize& least, int count, int columns, int group, int inner, int labelRow) {
    const int sp = HeatmapGrid::kSpacing;
    const Shape s = shapeOf(count, columns, group, inner);
    return {columns * least.width() + (columns - 1) * sp + s.gaps * (HeatmapGrid::kGroupGap + sp),
            s.rows * least.height() + (s.rows - 1) * sp + s.labels * labelRow};
}

}  // namespace

HeatmapGrid::Arrangement HeatmapGrid::arrangementFor(int count) const {
    Arrangement best;
    if (count <= 0 || heads_.empty()) return best;
    HeadHeatmap* first = heads_.front();
    const QSize least = first->readableSize(), margins = first->readableMargins();
    const int n = std::max(1, first->rowCount()), m = std::max(1, first->columnCount());
    const QSize view = frame_->maximumViewportSize();
    const int group = groupSize(), label = labelRowHeight(this);
    // Everything in view: the columns (and block width) giving the largest cells, every head
    // readable.
    double bestCell = -1;
    for (int c = 1; c <= count; ++c)
        for (const int inner : heatmap_grid_layout::blockWidths(count, c, group)) {
            const QSize slot = slotIn(view, count, c, group, inner, label);
            if (slot.width() < least.width() || slot.height() < least.height()) continue;
            const double cell = std::min(double(slot.width() - margins.width()) / m,
                                         double(slot.height() - margins.height()) / n);
            if (cell > bestCell + 1e-9) {
                bestCell = cell;
                best.columns = c;
                best.inner = inner;
            }
        }
    QSize minimum = least;
    if (best.columns == 0) {
        // Too small for all of them: as many readable columns as the width holds, and scroll
        // down (the vertical scroll bar takes its width first); of equally many columns the
        // arrangement of fewest rows.
        const int bar = frame_->verticalScrollBar()->sizeHint().width();
        const QSize wide(std::max(1, view.width() - bar), 1 << 20);
        const auto widest = [&](const QSize& head) {
            Arrangement a;
            int height = 0;
            for (int c = 1; c <= count; ++c)
                for (const int inner : heatmap_grid_layout::blockWidths(count, c, group)) {
                    if (slotIn(wide, count, c, group, inner, label).width() < head.width())
                        continue;
                    const int h = shapeOf(count, c, group, inner).rows;
                    if (c > a.columns || h < height) {
                        a.columns = c;
                        a.inner = inner;
                        height = h;
                    }
                }
            return a;
        };
        best = widest(least);
        // One column of long-token heads left most of the width empty: two or more narrower
        // heads use it, their key labels thinned (numbered) instead of every one shown.
        const int compact = margins.width() + kCompactAxis;
        const QSize narrow(compact, least.height());
        if (best.columns <= 1 && count > 1 && widest(narrow).columns > 1) {
            best = widest(narrow);
            minimum.setWidth(compact);
        }
        if (best.columns == 0) best = {1, 1, {}};
    }
    best.minimum = sizeOf(minimum, count, best.columns, group, best.inner, label);
    return best;
}

void HeatmapGrid::relayout() {
    arrangement_ = arrangementFor(visibleCount());
    const int cols = std::max(1, arrangement_.columns);
    placeHeads(cols, std::clamp(arrangement_.inner, 1, cols));
    columns_ = cols;
    frame_->setContentMinimum(arrangement_.minimum);
    // Place the heads now, even when hidden (offscreen rendering): the outer layout sizes the
    // frame, the frame sizes the heads area, then the grid layout sizes the heads.
    layout()->activate();
    frame_->settle();
    equalizeHeads();
    layout_->activate();
}

void HeatmapGrid::placeHeads(int cols, int blockWidth) {
    // Empty the layout: heads stay (they are placed again), labels and gaps go.
    while (QLayoutItem* item = layout_->takeAt(0))
        delete item;  // a widget's item, not the widget
    for (QLabel* l : groupLabels_)
        delete l;
    groupLabels_.clear();
    for (int c = 0; c < layout_->columnCount(); ++c) {
        layout_->setColumnStretch(c, 0);
        layout_->setColumnMinimumWidth(c, 0);
    }
    for (int r = 0; r < layout_->rowCount(); ++r)
        layout_->setRowStretch(r, 0);
    const int group = groupSize();
    // Without groups: head i at (i / cols, i % cols). With groups: each group is a block of
    // `inner` columns under its label, blocks side by side with a gap column between them, or
    // stacked (a group wider than a row takes several rows).
    const int inner = group > 1 ? std::min(group, blockWidth) : cols;
    const int perRow = group > 1 ? std::max(1, cols / inner) : 1;
    const int groupRows = group > 1 ? (group + inner - 1) / inner : 0;
    int slot = 0;
    for (HeadHeatmap* h : heads_) {
        const bool show = focused_ < 0 || focused_ == h->head();
        h->setVisible(show);
        if (!show) continue;
        int row = slot / cols, col = slot % cols;
        if (group > 1) {
            const int g = slot / group, i = slot % group;
            const int blockRow = g / perRow, blockCol = g % perRow;
            const int top = blockRow * (groupRows + 1);
            const int left = blockCol * (inner + 1);
            row = top + 1 + i / inner;
            col = left + i % inner;
            layout_->setColumnStretch(col, 1);
            if (i == 0) {
                const int lastHead = std::min(slot + group, headCount());
                auto* label = new QLabel(
                    tr("KV %1 · heads %2–%3").arg(g + 1).arg(slot + 1).arg(lastHead), headsArea_);
                label->setObjectName(QStringLiteral("kvGroupLabel"));
                label->setAlignment(Qt::AlignCenter);
                label->setToolTip(tr("Grouped-query attention: heads %1–%2 share key/value head %3 "
                                     "(their keys and values are the same)")
                                      .arg(slot + 1)
                                      .arg(lastHead)
                                      .arg(g + 1));
                label->setStyleSheet(QStringLiteral("border-bottom: 1px solid palette(mid);"));
                layout_->addWidget(label, top, left, 1, inner);
                label->show();
                groupLabels_.push_back(label);
                if (blockCol > 0) {
                    layout_->setColumnMinimumWidth(left - 1, kGroupGap);
                    layout_->addItem(new QSpacerItem(kGroupGap, 1, QSizePolicy::Fixed), top,
                                     left - 1);
                }
            }
            layout_->setRowStretch(row, 1);
        } else {
            layout_->setColumnStretch(col, 1);
            layout_->setRowStretch(row, 1);
        }
        layout_->addWidget(h, row, col);
        ++slot;
    }
}

void HeatmapGrid::equalizeHeads() {
    // Every head of the grid gets the same size: the slot the heads area divides into, rounded
    // down, so that no head is a pixel wider than its neighbour (and labelled differently).
    const int count = visibleCount();
    if (count <= 0 || arrangement_.columns <= 0) return;
    const QSize slot = slotIn(headsArea_->size(), count, arrangement_.columns, groupSize(),
                              std::max(1, arrangement_.inner), labelRowHeight(this));
    for (HeadHeatmap* h : heads_)
        h->setMaximumSize(std::max(h->minimumWidth(), slot.width()),
                          std::max(h->minimumHeight(), slot.height()));
}

bool HeatmapGrid::eventFilter(QObject* watched, QEvent* event) {
    if (watched == headsArea_ && event->type() == QEvent::Resize) equalizeHeads();
    return QWidget::eventFilter(watched, event);
}
