// AttnScope — one strip per attribution method. GPL-3.0-or-later.
#include "views/influence_strips.hpp"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "views/shown_text.hpp"

namespace {

constexpr int kStripPad = 6;

double largest(const std::vector<double>& v) {
    double m = 0;
    for (double x : v)
        if (std::isfinite(x)) m = std::max(m, std::abs(x));
    return m;
}

QColor mix(const QColor& a, const QColor& b, double t) {
    t = std::clamp(t, 0.0, 1.0);
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t),
                            float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

}  // namespace

InfluenceStrips::InfluenceStrips(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("influenceStrips"));
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void InfluenceStrips::setData(std::vector<Row> rows, QStringList tokens, int position) {
    rows_ = std::move(rows);
    tokens_ = std::move(tokens);
    position_ = position;
    updateGeometry();
    update();
}

void InfluenceStrips::clear() {
    setData({}, {}, -1);
}

int InfluenceStrips::pitch() const {
    return fontMetrics().height() + 6;
}

int InfluenceStrips::titleHeight() const {
    if (title_.isEmpty()) return 0;
    const QRect r = fontMetrics().boundingRect(
        QRect(0, 0, std::max(1, width() - 2 * kStripPad), 10000), Qt::TextWordWrap, title_);
    return r.height() + kStripPad;
}

int InfluenceStrips::labelWidth() const {
    int w = 0;
    for (const Row& r : rows_)
        w = std::max(w, fontMetrics().horizontalAdvance(r.label));
    return w + 2 * kStripPad;
}

int InfluenceStrips::tokenBand() const {
    return fontMetrics().height() + 6;
}

double InfluenceStrips::cellWidth() const {
    if (tokens_.isEmpty()) return 0;
    return double(width() - labelWidth() - kStripPad) / double(tokens_.size());
}

QRect InfluenceStrips::labelRect(int row) const {
    return QRect(kStripPad, titleHeight() + row * pitch(), labelWidth() - kStripPad, pitch() - 2);
}

QRect InfluenceStrips::cellsRect(int row) const {
    return QRect(labelWidth(), titleHeight() + row * pitch(),
                 int(cellWidth() * double(tokens_.size())), pitch() - 2);
}

QPoint InfluenceStrips::cellCentre(int row, int column) const {
    const QRect r = cellsRect(row);
    return QPoint(int(r.left() + (column + 0.5) * cellWidth()), r.center().y());
}

QPoint InfluenceStrips::cellAt(const QPoint& pos) const {
    for (int row = 0; row < int(rows_.size()); ++row) {
        const QRect r = cellsRect(row);
        if (!r.contains(pos)) continue;
        const int column = int((pos.x() - r.left()) / std::max(1e-9, cellWidth()));
        if (column >= 0 && column < tokens_.size()) return {row, column};
    }
    return {-1, -1};
}

QColor InfluenceStrips::colorOf(int row, double value) const {
    const Row& r = rows_[std::size_t(row)];
    const double hi = largest(r.values);
    const double t = hi > 0 ? value / hi : 0.0;
    const QColor white(255, 255, 255), red(180, 4, 38), blue(59, 76, 192), dark(49, 54, 149);
    if (r.signedValues) return t >= 0 ? mix(white, red, t) : mix(white, blue, -t);
    return mix(white, dark, std::abs(t));
}

QString InfluenceStrips::tipAt(int row, int column) const {
    if (row < 0 || row >= int(rows_.size()) || column < 0 || column >= tokens_.size()) return {};
    const Row& r = rows_[std::size_t(row)];
    const QString where = tr("position %1 %2").arg(column + 1).arg(quotedToken(tokens_[column]));
    if (!r.refusal.isEmpty()) return r.label + QStringLiteral("\n") + r.refusal;
    if (std::size_t(column) >= r.values.size()) return {};
    const double v = r.values[std::size_t(column)], hi = largest(r.values);
    if (!std::isfinite(v)) return tr("%1 does not read %2").arg(r.label, where);
    QString tip = tr("%1 of %2: %3").arg(r.label, where).arg(v, 0, 'g', 6);
    if (hi > 0) tip += tr("\n%1 % of the row's largest |value|").arg(100.0 * v / hi, 0, 'f', 1);
    return tip;
}

QSize InfluenceStrips::minimumSizeHint() const {
    const int cells = std::max<int>(1, int(tokens_.size()));
    return {labelWidth() + cells * kLeastCell + kStripPad,
            std::max(2 * fontMetrics().height() + kStripPad, titleHeight()) +
                int(rows_.size()) * pitch() + tokenBand() + kStripPad};
}

QSize InfluenceStrips::sizeHint() const {
    const QSize m = minimumSizeHint();
    return {std::max(m.width(), 600), m.height()};
}

void InfluenceStrips::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const QColor text = palette().color(QPalette::Text);
    p.setPen(text);
    if (!title_.isEmpty())
        p.drawText(QRect(kStripPad, 0, width() - 2 * kStripPad, titleHeight()),
                   Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, title_);
    const double cw = cellWidth();
    const QFontMetrics fm = fontMetrics();
    for (int row = 0; row < int(rows_.size()); ++row) {
        const Row& r = rows_[std::size_t(row)];
        p.setPen(text);
        p.drawText(labelRect(row), Qt::AlignRight | Qt::AlignVCenter, r.label);
        const QRect cells = cellsRect(row);
        if (!r.refusal.isEmpty()) {
            p.fillRect(cells, palette().color(QPalette::AlternateBase));
            QFont italic = font();
            italic.setItalic(true);
            p.setFont(italic);
            p.setPen(palette().color(QPalette::PlaceholderText));
            p.drawText(
                cells.adjusted(4, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter,
                QFontMetrics(italic).elidedText(r.refusal, Qt::ElideRight, cells.width() - 8));
            p.setFont(font());
            continue;
        }
        for (int c = 0; c < tokens_.size() && std::size_t(c) < r.values.size(); ++c) {
            const QRectF cell(cells.left() + c * cw, cells.top(), cw, cells.height());
            // No value (a token the row does not read: an encoder–decoder's head row over the
            // other sequence) is an empty cell, not a zero.
            if (!std::isfinite(r.values[std::size_t(c)])) continue;
            const QColor colour = colorOf(row, r.values[std::size_t(c)]);
            p.fillRect(cell.adjusted(0.5, 0.5, -0.5, -0.5), colour);
            const QString number = QString::number(r.values[std::size_t(c)], 'g', 2);
            if (fm.horizontalAdvance(number) + 4 <= cell.width()) {
                p.setPen(colour.lightnessF() < 0.5 ? Qt::white : Qt::black);
                p.drawText(cell, Qt::AlignCenter, number);
            }
        }
    }
    if (rows_.empty() || tokens_.isEmpty()) return;
    // The explained position, outlined through every strip.
    const int top = cellsRect(0).top(), bottom = cellsRect(int(rows_.size()) - 1).bottom();
    if (position_ >= 0 && position_ < tokens_.size()) {
        p.setPen(QPen(text, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(
            QRectF(labelWidth() + position_ * cw, top, cw, bottom - top).adjusted(1, 1, -1, 0));
    }
    // The tokens under the cells: elided to their column, the explained one in bold.
    const int y = bottom + 3;
    for (int c = 0; c < tokens_.size(); ++c) {
        QFont f = font();
        f.setBold(c == position_);
        p.setFont(f);
        p.setPen(text);
        const QRectF cell(labelWidth() + c * cw, y, cw, tokenBand());
        p.drawText(cell, Qt::AlignHCenter | Qt::AlignTop,
                   QFontMetrics(f).elidedText(tokens_[c], Qt::ElideRight, int(cw) - 2));
    }
    p.setFont(font());
}

void InfluenceStrips::mousePressEvent(QMouseEvent* event) {
    const QPoint cell = cellAt(event->position().toPoint());
    if (cell.x() >= 0) Q_EMIT rowClicked(cell.x());
    for (int row = 0; cell.x() < 0 && row < int(rows_.size()); ++row)
        if (labelRect(row).contains(event->position().toPoint())) Q_EMIT rowClicked(row);
}

bool InfluenceStrips::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QPoint cell = cellAt(help->pos());
        const QString tip = tipAt(cell.x(), cell.y());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), tip, this);
        return true;
    }
    return QWidget::event(event);
}
