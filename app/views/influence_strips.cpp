// AttnScope — one strip per attribution method. GPL-3.0-or-later.
#include "views/influence_strips.hpp"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "views/cell_map_style.hpp"
#include "views/screen_only.hpp"
#include "views/scroll_frame.hpp"
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

InfluenceStrips::InfluenceStrips(QWidget* parent)
    : QWidget(parent), bar_(new QScrollBar(Qt::Horizontal, this)) {
    setObjectName(QStringLiteral("influenceStrips"));
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    bar_->setObjectName(QStringLiteral("influenceStripsScroll"));
    bar_->setProperty(kScreenOnlyProperty, true);  // a figure draws every cell
    bar_->hide();
    connect(bar_, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
}

void InfluenceStrips::setData(std::vector<Row> rows, QStringList tokens, int position) {
    rows_ = std::move(rows);
    tokens_ = std::move(tokens);
    position_ = position;
    fit();
    // The explained position in view, as near the middle as the run allows.
    if (position_ >= 0) bar_->setValue(int((position_ + 0.5) * cellWidth()) - cellRoom() / 2);
    update();
}

void InfluenceStrips::setTitle(const QString& title) {
    title_ = title;
    fit();
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

int InfluenceStrips::cellRoom() const {
    return std::max(1, width() - labelWidth() - kStripPad);
}

bool InfluenceStrips::inFigure() const {
    for (const QWidget* w = parentWidget(); w; w = w->parentWidget())
        if (auto* frame = qobject_cast<const ScrollFrame*>(w)) return frame->fitting();
    return false;
}

double InfluenceStrips::cellWidth() const {
    if (tokens_.isEmpty()) return 0;
    const double fill = double(cellRoom()) / double(tokens_.size());
    return inFigure() ? fill : std::max(double(kLeastCell), fill);
}

bool InfluenceStrips::scrolls() const {
    return cellWidth() * double(tokens_.size()) > cellRoom() + 0.5;
}

int InfluenceStrips::offset() const {
    return scrolls() ? bar_->value() : 0;
}

std::vector<InfluenceStrips::RowBox> InfluenceStrips::rowBoxes() const {
    std::vector<RowBox> boxes(rows_.size());
    QFont italic = font();
    italic.setItalic(true);
    const QFontMetrics fm(italic);
    int top = titleHeight();
    for (int row = 0; row < int(rows_.size());) {
        const int count = std::max(1, blockRows(row));
        // A reason wrapped in the block's width, never cut: the block grows to hold it.
        const int need = count > 0 && !rows_[std::size_t(row)].refusal.isEmpty()
                             ? fm.boundingRect(QRect(0, 0, std::max(1, cellRoom() - 8), 10000),
                                               Qt::TextWordWrap, rows_[std::size_t(row)].refusal)
                                       .height() +
                                   6
                             : 0;
        const int each = std::max(pitch(), (need + count - 1) / count);
        for (int k = 0; k < count; ++k, ++row)
            boxes[std::size_t(row)] = {top + k * each, each};
        top += count * each;
    }
    return boxes;
}

int InfluenceStrips::blockRows(int row) const {
    const QString& why = rows_[std::size_t(row)].refusal;
    if (why.isEmpty() || (row > 0 && rows_[std::size_t(row) - 1].refusal == why)) return 0;
    int count = 1;
    while (std::size_t(row + count) < rows_.size() &&
           rows_[std::size_t(row + count)].refusal == why)
        ++count;
    return count;
}

QRect InfluenceStrips::labelRect(int row) const {
    const RowBox b = rowBoxes()[std::size_t(row)];
    return QRect(kStripPad, b.top, labelWidth() - kStripPad, b.height - 2);
}

QRect InfluenceStrips::cellsRect(int row) const {
    const RowBox b = rowBoxes()[std::size_t(row)];
    return QRect(labelWidth(), b.top,
                 int(std::min(double(cellRoom()), cellWidth() * double(tokens_.size()))),
                 b.height - 2);
}

QPoint InfluenceStrips::cellCentre(int row, int column) const {
    const QRect r = cellsRect(row);
    return QPoint(int(r.left() + (column + 0.5) * cellWidth()) - offset(), r.center().y());
}

QPoint InfluenceStrips::cellAt(const QPoint& pos) const {
    for (int row = 0; row < int(rows_.size()); ++row) {
        const QRect r = cellsRect(row);
        if (!r.contains(pos)) continue;
        const int column = int((pos.x() - r.left() + offset()) / std::max(1e-9, cellWidth()));
        if (column >= 0 && column < tokens_.size()) return {row, column};
    }
    return {-1, -1};
}

void InfluenceStrips::fit() {
    const bool scrolling = scrolls() && !tokens_.isEmpty();
    const int total = int(std::ceil(cellWidth() * double(tokens_.size())));
    bar_->setRange(0, scrolling ? total - cellRoom() : 0);
    bar_->setPageStep(cellRoom());
    bar_->setSingleStep(std::max(1, int(cellWidth())));
    const int h = bar_->sizeHint().height();
    bar_->setGeometry(labelWidth(), height() - h - 1, cellRoom(), h);
    bar_->setVisible(scrolling);
    // The explained position stays in view as the width changes.
    if (scrolling && position_ >= 0) {
        const int left = int(position_ * cellWidth()), right = int((position_ + 1) * cellWidth());
        if (left < bar_->value())
            bar_->setValue(left);
        else if (right > bar_->value() + cellRoom())
            bar_->setValue(right - cellRoom());
    }
    // Another width wraps the title and the reasons into other heights.
    if (const QSize hint = minimumSizeHint(); hint != hinted_) {
        hinted_ = hint;
        updateGeometry();
    }
}

void InfluenceStrips::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fit();
}

void InfluenceStrips::wheelEvent(QWheelEvent* event) {
    // Sideways (or Shift with the wheel) moves the cells; the rest scrolls the page.
    const QPoint d = event->angleDelta();
    const int along = d.x() != 0 ? d.x() : (event->modifiers() & Qt::ShiftModifier) ? d.y() : 0;
    if (!scrolls() || along == 0) {
        event->ignore();
        return;
    }
    bar_->setValue(bar_->value() - along * bar_->singleStep() / 40);
    event->accept();
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
    const int cells = std::clamp<int>(int(tokens_.size()), 1, kLeastCells);
    const std::vector<RowBox> boxes = rowBoxes();
    const int rows = boxes.empty() ? titleHeight() : boxes.back().top + boxes.back().height;
    return {labelWidth() + cells * kLeastCell + kStripPad,
            std::max(2 * fontMetrics().height() + kStripPad, rows) + tokenBand() + kStripPad +
                (scrolls() ? bar_->sizeHint().height() + 2 : 0)};
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
    // The cells in view: the columns under the names are scrolled away.
    const QRect room(labelWidth(), 0, cellRoom(), height());
    const int x0 = labelWidth() - offset();
    const int first = std::max(0, int(offset() / std::max(1e-9, cw)));
    const int last =
        std::min(int(tokens_.size()), int((offset() + room.width()) / std::max(1e-9, cw)) + 1);
    for (int row = 0; row < int(rows_.size()); ++row) {
        const Row& r = rows_[std::size_t(row)];
        p.setPen(text);
        p.drawText(labelRect(row), Qt::AlignRight | Qt::AlignVCenter, r.label);
        const QRect cells = cellsRect(row);
        if (!r.refusal.isEmpty()) {
            // One block for the rows refused for one reason, the reason wrapped in it.
            const int count = blockRows(row);
            if (count == 0) continue;
            const QRect block = cells.united(cellsRect(row + count - 1));
            p.fillRect(block, palette().color(QPalette::AlternateBase));
            QFont italic = font();
            italic.setItalic(true);
            p.setFont(italic);
            p.setPen(palette().color(QPalette::PlaceholderText));
            p.drawText(block.adjusted(4, 0, -4, 0),
                       Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, r.refusal);
            p.setFont(font());
            continue;
        }
        p.save();
        p.setClipRect(room);
        for (int c = first; c < last && std::size_t(c) < r.values.size(); ++c) {
            const QRectF cell(x0 + c * cw, cells.top(), cw, cells.height());
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
        p.restore();
    }
    if (rows_.empty() || tokens_.isEmpty()) return;
    p.setClipRect(room);
    // The explained position, outlined through every strip.
    const int top = cellsRect(0).top(), bottom = cellsRect(int(rows_.size()) - 1).bottom();
    if (position_ >= 0 && position_ < tokens_.size()) {
        p.setPen(QPen(text, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(x0 + position_ * cw, top, cw, bottom - top).adjusted(1, 1, -1, 0));
    }
    // The tokens under the cells: elided to their column, the explained one in bold.
    const int y = bottom + 3;
    for (int c = first; c < last; ++c) {
        QFont f = font();
        f.setBold(c == position_);
        p.setFont(f);
        p.setPen(text);
        const QRectF cell(x0 + c * cw, y, cw, tokenBand());
        p.drawText(cell, Qt::AlignHCenter | Qt::AlignTop,
                   cellmap::fitted(QFontMetrics(f), tokens_[c], int(cw) - 2));
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
