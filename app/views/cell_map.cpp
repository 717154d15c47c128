// AttnScope — a labelled matrix of coloured cells and a list of signed bars. GPL-3.0-or-later.
#include "views/cell_map.hpp"
#include "views/cell_map_style.hpp"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "attn/tokenizers/narrow_token.hpp"

namespace cellmap {

/// Diverging blue – white – red (ColorBrewer RdBu's ends) for T in [−1, 1].
QColor diverging(double t) {
    t = std::clamp(t, -1.0, 1.0);
    const QColor end = t < 0 ? QColor(33, 102, 172) : QColor(178, 24, 43);
    const double a = std::abs(t);
    return QColor::fromRgbF(float(1 + a * (end.redF() - 1)), float(1 + a * (end.greenF() - 1)),
                            float(1 + a * (end.blueF() - 1)));
}

/// Sequential white – dark blue for T in [0, 1].
QColor sequential(double t) {
    t = std::clamp(t, 0.0, 1.0);
    const QColor end(8, 48, 107);
    return QColor::fromRgbF(float(1 + t * (end.redF() - 1)), float(1 + t * (end.greenF() - 1)),
                            float(1 + t * (end.blueF() - 1)));
}

QColor inkOn(const QColor& c) {
    return c.lightnessF() < 0.55 ? Qt::white : Qt::black;
}

QString fitted(const QFontMetrics& fm, const QString& text, int room) {
    const std::vector<std::string> forms = attn::narrow_forms(text.toStdString());
    for (const std::string& form : forms)
        if (const QString f = QString::fromStdString(form); fm.horizontalAdvance(f) <= room)
            return f;
    return fm.elidedText(QString::fromStdString(forms.back()), Qt::ElideRight, room);
}

}  // namespace cellmap

using namespace cellmap;

CellMap::CellMap(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void CellMap::setData(const attn::Matrix& values, QStringList rowLabels, QStringList columnLabels,
                      QStringList texts) {
    values_ = values;
    rows_ = std::move(rowLabels);
    columns_ = std::move(columnLabels);
    texts_ = std::move(texts);
    updateGeometry();
    update();
}

void CellMap::clear() {
    setData({}, {}, {});
}

void CellMap::setAxisNames(const QString& rows, const QString& columns) {
    rowName_ = rows;
    columnName_ = columns;
    update();
}

double CellMap::range() const {
    if (limit_ > 0) return limit_;
    double hi = floor_;
    for (attn::Index i = 0; i < values_.size(); ++i)
        if (std::isfinite(values_.data()[i]))
            hi = std::max(hi, std::abs(double(values_.data()[i])));
    return hi > 0 ? hi : 1.0;
}

void CellMap::setEmphasisedColumns(std::vector<int> columns) {
    emphasised_ = std::move(columns);
    updateGeometry();
    update();
}

QColor CellMap::colorOf(double value) const {
    if (!std::isfinite(value)) return palette().color(QPalette::Mid);
    return scale_ == Scale::Diverging ? diverging(value / range()) : sequential(value / range());
}

int CellMap::cellLeft() const {
    const QFontMetrics fm(font());
    int left = fm.horizontalAdvance(rowName_) > 0 ? fm.height() + kPad : kPad;
    for (const QString& r : rows_)
        left = std::max(
            left, fm.horizontalAdvance(r) + 2 * kPad +
                      (rowName_.isEmpty() ? 0 : fm.height() + 2 * kPad));  // the axis name's band
    return left;
}

int CellMap::titleHeight() const {
    // Wrapped, never cut: a narrow figure keeps its whole title.
    return QFontMetrics(font())
        .boundingRect(QRect(0, 0, std::max(1, width() - 2 * kPad), 10000),
                      Qt::AlignHCenter | Qt::TextWordWrap, title_)
        .height();
}

QRectF CellMap::cellArea() const {
    const QFontMetrics fm(font());
    const int left = cellLeft();
    const int top = (title_.isEmpty() ? 0 : titleHeight() + kPad) + kPad;
    const double w =
        std::max(1, width() - left - kPad) / double(std::max<attn::Index>(1, values_.cols()));
    // Column labels below the cells, the axis name under them, then the colour key.
    const int bottom = columnLabels(w).band + kPad + (columnName_.isEmpty() ? 0 : fm.height()) +
                       kKey + fm.height() + 2 * kPad;
    return QRectF(left, top, std::max(1, width() - left - kPad),
                  std::max(1, height() - top - bottom));
}

QPoint CellMap::cellAt(const QPoint& pos) const {
    if (values_.size() == 0) return {-1, -1};
    const QRectF a = cellArea();
    if (!a.contains(pos)) return {-1, -1};
    const int c = std::clamp(int((pos.x() - a.left()) / a.width() * double(values_.cols())), 0,
                             int(values_.cols()) - 1);
    const int r = std::clamp(int((pos.y() - a.top()) / a.height() * double(values_.rows())), 0,
                             int(values_.rows()) - 1);
    return {r, c};
}

QPoint CellMap::cellCentre(int row, int column) const {
    const QRectF a = cellArea();
    const double w = a.width() / double(std::max<attn::Index>(1, values_.cols()));
    const double h = a.height() / double(std::max<attn::Index>(1, values_.rows()));
    return QPointF(a.left() + (column + 0.5) * w, a.top() + (row + 0.5) * h).toPoint();
}

QSize CellMap::minimumSizeHint() const {
    return {160, 120};
}

QSize CellMap::sizeHint() const {
    const QFontMetrics fm(font());
    return {int(std::max<attn::Index>(4, values_.cols())) *
                    fm.horizontalAdvance(QStringLiteral("00000")) +
                80,
            int(std::max<attn::Index>(4, values_.rows())) * (fm.height() + 6) + 90};
}

void CellMap::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    p.setPen(palette().color(QPalette::Text));
    const QFontMetrics fm(font());
    if (!title_.isEmpty())
        p.drawText(QRectF(kPad, kPad, width() - 2 * kPad, titleHeight()),
                   Qt::AlignHCenter | Qt::TextWordWrap, title_);
    if (values_.size() == 0) return;
    const QRectF a = cellArea();
    const double w = a.width() / double(values_.cols()), h = a.height() / double(values_.rows());
    const bool withText = !texts_.isEmpty();
    const bool withValues = !withText && showValues_ &&
                            w >= fm.horizontalAdvance(QStringLiteral("−0.00")) + 4 &&
                            h >= fm.height();
    // Light lines between cells: a 0 cell (white) is still seen as a cell.
    const QPen grid(palette().color(QPalette::Midlight), 0);
    for (attn::Index r = 0; r < values_.rows(); ++r)
        for (attn::Index c = 0; c < values_.cols(); ++c) {
            const QRectF cell(a.left() + double(c) * w, a.top() + double(r) * h, w, h);
            const QColor fill = colorOf(double(values_(r, c)));
            p.fillRect(cell, fill);
            if (w >= 6 && h >= 6) {
                p.setPen(grid);
                p.drawRect(cell);
            }
            if (!withText && !withValues) continue;
            const QString t = withText ? texts_.value(int(r * values_.cols() + c))
                                       : QString::number(double(values_(r, c)), 'f', 2);
            p.setPen(inkOn(fill));
            p.drawText(cell.adjusted(1, 0, -1, 0), Qt::AlignCenter,
                       withText ? fitted(fm, t, int(w) - 2)
                                : fm.elidedText(t, Qt::ElideRight, int(w) - 2));
        }
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(a);
    paintLabels(p, a);
}

void CellMap::mousePressEvent(QMouseEvent* event) {
    const QPoint c = cellAt(event->position().toPoint());
    if (c.x() >= 0 && event->button() == Qt::LeftButton) Q_EMIT cellClicked(c.x(), c.y());
    QWidget::mousePressEvent(event);
}

bool CellMap::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QPoint c = cellAt(help->pos());
        if (c.x() >= 0 && tip_)
            QToolTip::showText(help->globalPos(), tip_(c.x(), c.y()), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

BarList::BarList(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
}

void BarList::setData(std::vector<double> values, QStringList labels) {
    values_ = std::move(values);
    labels_ = std::move(labels);
    updateGeometry();
    update();
}

int BarList::rowPitch() const {
    return QFontMetrics(font()).height() + 2;
}

int BarList::titleHeight() const {
    return kPad + (title_.isEmpty() ? 0 : QFontMetrics(font()).height() + kPad);
}

QSize BarList::minimumSizeHint() const {
    return {180, std::max(80, titleHeight() + int(values_.size()) * rowPitch() + kPad)};
}

QSize BarList::sizeHint() const {
    return {260, titleHeight() + int(values_.size()) * (rowPitch() + 4) + kPad};
}

std::vector<BarList::Row> BarList::rows() const {
    std::vector<Row> out;
    if (values_.empty()) return out;
    const QFontMetrics fm(font());
    int labelW = 0;
    for (const QString& l : labels_)
        labelW = std::max(labelW, fm.horizontalAdvance(l));
    int numW = fm.horizontalAdvance(QStringLiteral("−0.000e+00"));
    for (double v : values_)
        numW = std::max(numW, fm.horizontalAdvance(shortNumber(v)));
    const double left = labelW + 2 * kPad, right = width() - numW - kPad;
    const double top = titleHeight();
    const double rowH =
        std::min<double>(rowPitch() + 4, (height() - top - kPad) / double(values_.size()));
    // Rows shorter than a line of text (a squeezed figure): every k-th labelled, none overlap.
    const int every = rowH >= rowPitch() ? 1 : int(std::ceil(rowPitch() / std::max(1.0, rowH)));
    for (std::size_t i = 0; i < values_.size(); ++i) {
        const double y = top + double(i) * rowH;
        Row r;
        r.bar = QRectF(left, y + 2, std::max(1.0, right - left), std::max(1.0, rowH - 4));
        if (int(i) % every == 0) {
            const double h = std::max<double>(rowH, fm.height());
            const double cy = y + (rowH - h) / 2;
            r.label = QRectF(0, cy, labelW + kPad, h);
            r.number = QRectF(right + kPad / 2.0, cy, numW, h);
        }
        out.push_back(r);
    }
    return out;
}

void BarList::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const QFontMetrics fm(font());
    p.setPen(palette().color(QPalette::Text));
    if (!title_.isEmpty())
        p.drawText(QRectF(0, kPad, width(), fm.height()), Qt::AlignHCenter, title_);
    const std::vector<Row> all = rows();
    if (all.empty()) return;
    double hi = 0;
    for (double v : values_)
        hi = std::max(hi, std::abs(v));
    if (hi <= 0) hi = 1;
    const double mid = all.front().bar.center().x(), half = all.front().bar.width() / 2;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const Row& r = all[i];
        const double v = values_[i], len = v / hi * half;
        p.setPen(palette().color(QPalette::Text));
        if (!r.label.isEmpty()) {
            p.drawText(r.label, Qt::AlignRight | Qt::AlignVCenter, labels_.value(int(i)));
            p.drawText(r.number, Qt::AlignLeft | Qt::AlignVCenter, shortNumber(v));
        }
        p.fillRect(QRectF(std::min(mid, mid + len), r.bar.top(), std::abs(len), r.bar.height()),
                   diverging(v / hi));
    }
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(QPointF(mid, all.front().bar.top() - 2), QPointF(mid, all.back().bar.bottom() + 2));
}
