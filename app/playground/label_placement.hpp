// AttnScope — places point labels so that they do not overlap. GPL-3.0-or-later.
#pragma once

#include <QMargins>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <vector>

namespace label_placement {

/// One of the eight places a label can take around its point: its alignment on the point and
/// the padding that keeps it off the marker.
struct Spot {
    Qt::Alignment align;
    QMargins padding;
};

/// The eight spots, in order of preference (above right first, as the eye expects).
const std::vector<Spot>& spots();

/// The rectangle the text takes at spot s for a point at `anchor`.
QRectF textRect(const QPointF& anchor, const QSizeF& text, const Spot& s);

/// For each label in order, the first spot whose text overlaps neither an earlier label nor a
/// marker (a square of ±markerRadius around each marker point); the least-overlapping spot when
/// none is free. Returns the spot index of each label; rects (if given) gets their text rects.
std::vector<int> place(const std::vector<QPointF>& anchors, const std::vector<QSizeF>& texts,
                       const std::vector<QPointF>& markers, double markerRadius,
                       std::vector<QRectF>* rects = nullptr);

}  // namespace label_placement
