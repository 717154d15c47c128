// AttnScope — a CellMap's row and column labels, axis names and colour key. GPL-3.0-or-later.
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "views/cell_map.hpp"
#include "views/cell_map_style.hpp"

using namespace cellmap;

namespace {
/// Upright labels longer than this many average characters are elided.
constexpr int kUprightChars = 10;
}  // namespace

CellMap::ColumnLabels CellMap::columnLabels(double w) const {
    const QFontMetrics fm(font());
    ColumnLabels l;
    const int n = int(std::min<attn::Index>(columns_.size(), values_.cols()));
    int widest = 1;
    for (int c = 0; c < n; ++c)
        widest = std::max(widest, fm.horizontalAdvance(columns_[c]) + kPad);
    // Side by side when every label fits its column, else upright (a line's height each).
    l.upright = widest > w;
    l.band = l.upright ? std::min(widest, fm.averageCharWidth() * kUprightChars + kPad) + 2
                       : fm.height() + 2;
    const double needs = l.upright ? fm.height() + 2 : widest;
    const int step = std::max(1, int(std::ceil(needs / std::max(1.0, w))));
    // Thinned: every step-th, the emphasised always, none that would overlap one of them.
    std::vector<bool> shown(std::size_t(std::max(0, n)), false);
    for (int c : emphasised_)
        if (c >= 0 && c < n) shown[std::size_t(c)] = true;
    for (int c = 0; c < n; c += step) {
        bool clear = true;
        for (int e : emphasised_)
            clear = clear && (e == c || std::abs(e - c) >= step);
        if (clear) shown[std::size_t(c)] = true;
    }
    for (int c = 0; c < n; ++c)
        if (shown[std::size_t(c)]) l.shown.push_back(c);
    return l;
}

std::vector<int> CellMap::labelledColumns() const {
    return columnLabels(cellArea().width() / double(std::max<attn::Index>(1, values_.cols())))
        .shown;
}

bool CellMap::uprightLabels() const {
    return columnLabels(cellArea().width() / double(std::max<attn::Index>(1, values_.cols())))
        .upright;
}

void CellMap::paintLabels(QPainter& p, const QRectF& a) const {
    const QFontMetrics fm(font());
    const double w = a.width() / double(values_.cols()), h = a.height() / double(values_.rows());
    p.setPen(palette().color(QPalette::Text));
    // Rows: every one when a line fits, else every k-th (the first and last always).
    const int rowStep = std::max(1, int(std::ceil(fm.height() / std::max(1.0, h))));
    const int rows = int(std::min<attn::Index>(rows_.size(), values_.rows()));
    for (int r = 0; r < rows; ++r)
        if (r % rowStep == 0 || r == rows - 1)
            p.drawText(
                QRectF(0, a.top() + r * h + h / 2 - fm.height(), a.left() - kPad, 2 * fm.height()),
                Qt::AlignRight | Qt::AlignVCenter, rows_[r]);
    const ColumnLabels labels = columnLabels(w);
    QFont bold = font();
    bold.setBold(true);
    for (int c : labels.shown) {
        const bool strong =
            std::find(emphasised_.begin(), emphasised_.end(), c) != emphasised_.end();
        p.setFont(strong ? bold : font());
        const QFontMetrics m(p.font());
        const double centre = a.left() + (c + 0.5) * w;
        if (labels.upright) {
            p.save();
            p.translate(centre, a.bottom() + 2);
            p.rotate(-90);
            p.drawText(QRectF(-labels.band, -fm.height() / 2.0, labels.band - 2, fm.height()),
                       Qt::AlignRight | Qt::AlignVCenter,
                       m.elidedText(columns_[c], Qt::ElideRight, labels.band - 2));
            p.restore();
        } else {
            const double room = std::max(w, double(m.horizontalAdvance(columns_[c])));
            p.drawText(QRectF(centre - room / 2, a.bottom() + 2, room, fm.height()),
                       Qt::AlignHCenter | Qt::AlignTop, columns_[c]);
        }
    }
    p.setFont(font());
    double y = a.bottom() + labels.band + kPad - 2;
    if (!columnName_.isEmpty()) {
        p.drawText(QRectF(a.left(), y, a.width(), fm.height()), Qt::AlignHCenter, columnName_);
        y += fm.height();
    }
    if (!rowName_.isEmpty()) {
        p.save();
        p.translate(fm.height() / 2.0 + 2, a.center().y());
        p.rotate(-90);
        p.drawText(QRectF(-a.height() / 2, -fm.height() / 2.0, a.height(), fm.height()),
                   Qt::AlignCenter, rowName_);
        p.restore();
    }
    paintKey(p, a, y);
}

void CellMap::paintKey(QPainter& p, const QRectF& a, double y) const {
    const QFontMetrics fm(font());
    // A gradient with its ends numbered and the marks asked for ticked: half the cells' width
    // under their middle, narrower where the numbers at its ends would leave the widget.
    const double lo = scale_ == Scale::Diverging ? -range() : 0.0, hi = range();
    const QString loText = shortNumber(lo), hiText = shortNumber(hi);
    const double loRoom = fm.horizontalAdvance(loText) + 2 * kPad,
                 hiRoom = fm.horizontalAdvance(hiText) + 2 * kPad;
    double left = a.left() + a.width() * 0.25, right = a.right() - a.width() * 0.25;
    left = std::max(left, loRoom);
    right = std::min(right, width() - hiRoom);
    if (right - left < 2 * kPad) right = left + 2 * kPad;  // too narrow a map: a stub of a key
    const QRectF key(left, y + kPad, right - left, kKey - 4);
    for (int i = 0; i < int(key.width()); ++i)
        p.fillRect(QRectF(key.left() + i, key.top(), 1.5, key.height()),
                   colorOf(lo + (hi - lo) * i / std::max(1.0, key.width() - 1)));
    p.drawRect(key);
    p.drawText(QRectF(key.left() - loRoom, key.top() - 3, loRoom - kPad, fm.height()),
               Qt::AlignRight, loText);
    p.drawText(QRectF(key.right() + kPad, key.top() - 3, hiRoom - kPad, fm.height()), Qt::AlignLeft,
               hiText);
    // Each mark ticked; numbered where its number does not run into the one before.
    double freeFrom = -1e9;
    for (double m : marks_) {
        if (m <= lo || m >= hi) continue;
        const double x = key.left() + (m - lo) / (hi - lo) * key.width();
        p.drawLine(QPointF(x, key.top() - 2), QPointF(x, key.bottom()));
        const QString text = shortNumber(m);
        const double half = fm.horizontalAdvance(text) / 2.0 + 2;
        if (x - half < freeFrom) continue;
        p.drawText(QRectF(x - half, key.bottom() + 1, 2 * half, fm.height()), Qt::AlignHCenter,
                   text);
        freeFrom = x + half;
    }
}
