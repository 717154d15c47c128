// AttnScope — a head's outlines of the selected queries and the selected cell.
// GPL-3.0-or-later.
#include "views/head_heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "views/plot_theme.hpp"
#include "views/screen_only.hpp"

void HeadHeatmap::updateSelectionItems() {
    const QColor color =
        style_.colorMap == ColorMapKind::Magma ? QColor(0, 229, 255) : selectionColor(palette());
    const int n = rowCount(), m = columnCount();
    const Selection& sel = selection();
    const int q = sel.query, k = sel.key;
    rowItem_->setVisible(q >= 0 && q < n);
    cellItem_->setVisible(q >= 0 && q < n && k >= 0 && k < m);
    rowItem_->setPen(QPen(color, 1.5));
    cellItem_->setPen(QPen(color, 2.5));
    if (rowItem_->visible()) {
        rowItem_->topLeft->setCoords(-0.5, q - 0.5);
        rowItem_->bottomRight->setCoords(m - 0.5, q + 0.5);
    }
    if (cellItem_->visible()) {
        cellItem_->topLeft->setCoords(k - 0.5, q - 0.5);
        cellItem_->bottomRight->setCoords(k + 0.5, q + 0.5);
    }
    // Every other selected query is outlined too: several queries selected must be seen as
    // several in every head, not as the last one clicked (the primary one has the cell mark).
    std::vector<int> others;
    for (int r : sel.selectedQueries())
        if (r != q && r >= 0 && r < n) others.push_back(r);
    while (otherRows_.size() < others.size()) {
        auto* item = new QCPItemRect(this);
        item->setClipToAxisRect(true);
        item->setBrush(Qt::NoBrush);
        item->setSelectable(false);
        item->setProperty(kSelectionMarkProperty, true);
        otherRows_.push_back(item);
    }
    for (std::size_t i = 0; i < otherRows_.size(); ++i) {
        QCPItemRect* item = otherRows_[i];
        item->setVisible(i < others.size());
        if (i >= others.size()) continue;
        item->setPen(QPen(color, 1.5));
        item->topLeft->setCoords(-0.5, others[i] - 0.5);
        item->bottomRight->setCoords(m - 0.5, others[i] + 0.5);
    }
}

std::vector<int> HeadHeatmap::outlinedQueries() const {
    std::vector<int> out;
    for (const QCPItemRect* item : otherRows_)
        if (item->visible()) out.push_back(int(std::lround(item->topLeft->coords().y() + 0.5)));
    if (rowItem_->visible()) out.push_back(int(std::lround(rowItem_->topLeft->coords().y() + 0.5)));
    std::sort(out.begin(), out.end());
    return out;
}
