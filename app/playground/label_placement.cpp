// AttnScope — places point labels so that they do not overlap. GPL-3.0-or-later.
#include "playground/label_placement.hpp"

namespace label_placement {

const std::vector<Spot>& spots() {
    static const std::vector<Spot> all = {
        {Qt::AlignLeft | Qt::AlignBottom, QMargins(7, 0, 0, 5)},      // above right
        {Qt::AlignRight | Qt::AlignBottom, QMargins(0, 0, 7, 5)},     // above left
        {Qt::AlignLeft | Qt::AlignTop, QMargins(7, 5, 0, 0)},         // below right
        {Qt::AlignRight | Qt::AlignTop, QMargins(0, 5, 7, 0)},        // below left
        {Qt::AlignLeft | Qt::AlignVCenter, QMargins(10, 0, 0, 0)},    // right
        {Qt::AlignRight | Qt::AlignVCenter, QMargins(0, 0, 10, 0)},   // left
        {Qt::AlignHCenter | Qt::AlignBottom, QMargins(0, 0, 0, 10)},  // above
        {Qt::AlignHCenter | Qt::AlignTop, QMargins(0, 10, 0, 0)},     // below
    };
    return all;
}

QRectF textRect(const QPointF& anchor, const QSizeF& text, const Spot& s) {
    const double w = text.width(), h = text.height();
    double x = anchor.x(), y = anchor.y();
    if (s.align & Qt::AlignLeft)
        x += s.padding.left();
    else if (s.align & Qt::AlignRight)
        x -= s.padding.right() + w;
    else
        x -= w / 2;
    if (s.align & Qt::AlignTop)
        y += s.padding.top();
    else if (s.align & Qt::AlignBottom)
        y -= s.padding.bottom() + h;
    else
        y -= h / 2;
    return {x, y, w, h};
}

namespace {

double overlap(const QRectF& a, const QRectF& b) {
    const QRectF i = a.intersected(b);
    return i.isValid() ? i.width() * i.height() : 0.0;
}

}  // namespace

std::vector<int> place(const std::vector<QPointF>& anchors, const std::vector<QSizeF>& texts,
                       const std::vector<QPointF>& markers, double markerRadius,
                       std::vector<QRectF>* rects) {
    std::vector<QRectF> taken;
    for (const QPointF& m : markers)
        taken.emplace_back(m.x() - markerRadius, m.y() - markerRadius, 2 * markerRadius,
                           2 * markerRadius);
    const std::size_t fixed = taken.size();
    std::vector<int> chosen;
    for (std::size_t k = 0; k < anchors.size() && k < texts.size(); ++k) {
        int best = 0;
        double bestCost = -1;
        for (int s = 0; s < int(spots().size()); ++s) {
            const QRectF r = textRect(anchors[k], texts[k], spots()[std::size_t(s)]);
            double cost = 0;
            for (std::size_t t = 0; t < taken.size(); ++t)
                // Another label is worse to cover than a marker.
                cost += overlap(r, taken[t]) * (t < fixed ? 1.0 : 4.0);
            if (bestCost < 0 || cost < bestCost) {
                bestCost = cost;
                best = s;
            }
            if (cost == 0) break;
        }
        chosen.push_back(best);
        taken.push_back(textRect(anchors[k], texts[k], spots()[std::size_t(best)]));
    }
    if (rects) rects->assign(taken.begin() + std::ptrdiff_t(fixed), taken.end());
    return chosen;
}

}  // namespace label_placement
