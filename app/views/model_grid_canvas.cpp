// AttnScope — paints the layers × heads thumbnails of the model view. GPL-3.0-or-later.

#include "views/model_grid_canvas.hpp"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace {
constexpr double kLeft = 64, kGridTop = 44, kRight = 12, kGap = 0.1;
constexpr double kRampGap = 6, kRampHeight = 14;
}  // namespace

ModelGridCanvas::ModelGridCanvas(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);  // the hovered head is named above the grid
    setAutoFillBackground(true);
    setCursor(Qt::PointingHandCursor);
}

void ModelGridCanvas::setThumbnails(model_grid::Thumbnails thumbnails) {
    thumbs_ = std::move(thumbnails);
    message_.clear();
    update();
}

void ModelGridCanvas::setCurrent(int layer, int head) {
    layer_ = layer;
    head_ = head;
    update();
}

void ModelGridCanvas::setMessage(const QString& message) {
    message_ = message;
    update();
}

QRectF ModelGridCanvas::Geometry::thumb(int layer, int head) const {
    const double inset = (cell - side) / 2;
    return {area.left() + head * cell + inset, area.top() + layer * cell + inset, side, side};
}

bool ModelGridCanvas::hasKvGroups() const {
    const int groups = thumbs_.kvGroups;
    return groups > 0 && groups < thumbs_.heads && thumbs_.heads % groups == 0;
}

double ModelGridCanvas::kvBand() const {
    // The groups' bracket and their "KV k" labels under the grid.
    return hasKvGroups() ? 4 + QFontMetricsF(font()).height() + 2 : 0;
}

QString ModelGridCanvas::rowLabel(int layer) const {
    if (thumbs_.layers == 1) return tr("Heads");
    // Gemma's local layers alternate with global ones: each row says which it is, so the
    // alternation reads down the grid (a model without windows keeps plain labels).
    const auto l = static_cast<std::size_t>(layer);
    if (l < thumbs_.windows.size() && thumbs_.windows[l] > 0)
        return tr("Layer %1 · window %2").arg(layer + 1).arg(thumbs_.windows[l]);
    if (std::any_of(thumbs_.windows.begin(), thumbs_.windows.end(), [](int w) { return w > 0; }))
        return tr("Layer %1 · global").arg(layer + 1);
    return tr("Layer %1").arg(layer + 1);
}

double ModelGridCanvas::leftBand() const {
    QString widest = thumbs_.layers <= 1 ? tr("Heads") : tr("Layer %1").arg(thumbs_.layers);
    for (int l = 0; l < thumbs_.layers; ++l)
        if (rowLabel(l).size() > widest.size()) widest = rowLabel(l);
    return std::max(kLeft, std::ceil(QFontMetricsF(font()).horizontalAdvance(widest)) + 16);
}

void ModelGridCanvas::drawKvGroups(QPainter& p, const Geometry& g) const {
    if (!hasKvGroups()) return;
    // Grouped-query attention: each group of heads sharing one key/value head is bracketed
    // below the grid (labelled by labels()), and a line parts the groups inside the grid.
    const int size = thumbs_.heads / thumbs_.kvGroups;
    p.save();
    p.setPen(QPen(palette().color(QPalette::WindowText), 1));
    const double bottom = g.area.bottom() + 4;
    for (int k = 0; k < thumbs_.kvGroups; ++k) {
        const double left = g.area.left() + k * size * g.cell, right = left + size * g.cell;
        p.drawLine(QPointF(left + 2, bottom), QPointF(right - 2, bottom));
        if (k > 0) p.drawLine(QPointF(left, g.area.top()), QPointF(left, g.area.bottom()));
    }
    p.restore();
}

ModelGridCanvas::Geometry ModelGridCanvas::geometry() const {
    Geometry g;
    if (thumbs_.layers <= 0 || thumbs_.heads <= 0) return g;
    // Below the grid: the groups' labels, the colour ramp, and the legend's text (under the
    // ramp when the canvas is too narrow for it beside).
    const double line = QFontMetricsF(font()).height();
    const double bottom = kvBand() + kRampGap + kRampHeight + 2 + line + 4;
    const double left = leftBand();
    const double w = width() - left - kRight, h = height() - kGridTop - bottom;
    g.cell = std::max(4.0, std::min(w / thumbs_.heads, h / thumbs_.layers));
    g.side = g.cell * (1 - kGap);
    const double gw = g.cell * thumbs_.heads, gh = g.cell * thumbs_.layers;
    // Centre the grid horizontally in the space right of the row labels.
    g.area = QRectF(left + std::max(0.0, (w - gw) / 2), kGridTop, gw, gh);
    return g;
}

bool ModelGridCanvas::cellAt(QPointF pos, int* layer, int* head) const {
    const Geometry g = geometry();
    if (g.cell <= 0 || !g.area.contains(pos)) return false;
    *head = std::clamp(static_cast<int>((pos.x() - g.area.left()) / g.cell), 0, thumbs_.heads - 1);
    *layer = std::clamp(static_cast<int>((pos.y() - g.area.top()) / g.cell), 0, thumbs_.layers - 1);
    return true;
}

QRectF ModelGridCanvas::thumbRect(int layer, int head) const {
    const Geometry g = geometry();
    if (g.cell <= 0 || layer < 0 || head < 0 || layer >= thumbs_.layers || head >= thumbs_.heads)
        return {};
    return g.thumb(layer, head);
}

QString ModelGridCanvas::legendText() const {
    return thumbs_.weightsOnly ? tr("0 → each head's largest weight (loaded weights)")
                               : tr("0 → each head's largest weight; grey: masked");
}

QRectF ModelGridCanvas::legendRamp() const {
    const Geometry g = geometry();
    return {g.area.left(), g.area.bottom() + kvBand() + kRampGap,
            std::min(g.area.width() * 0.55, 200.0), kRampHeight};
}

std::vector<ModelGridCanvas::Label> ModelGridCanvas::labels() const {
    std::vector<Label> out;
    if (!message_.isEmpty() || thumbs_.images.empty()) return out;
    QFont titleFont = font();
    titleFont.setBold(true);
    const QFontMetricsF tm(titleFont), fm(font());
    const QString subtitle =
        (thumbs_.layers == 1 ? tr("1 layer") : tr("%1 layers").arg(thumbs_.layers)) +
        (thumbs_.heads == 1 ? tr(" × 1 head") : tr(" × %1 heads").arg(thumbs_.heads)) +
        tr(", %1 × %2 tokens").arg(thumbs_.queries).arg(thumbs_.keys);
    // The subtitle whole at the right; the title takes the rest of the line (elided, whole in
    // its tooltip).
    const double subW = std::ceil(fm.horizontalAdvance(subtitle)) + 1;
    out.push_back({QRectF(width() - 8 - subW, 2, subW, 20), subtitle, false,
                   int(Qt::AlignRight | Qt::AlignVCenter)});
    const double titleRoom = std::max(0.0, width() - 16 - subW - 16);
    out.push_back({QRectF(8, 2, titleRoom, 20),
                   tm.elidedText(thumbs_.title, Qt::ElideRight, titleRoom), true,
                   int(Qt::AlignLeft | Qt::AlignVCenter)});
    const Geometry g = geometry();
    // Column and row labels; when cells are too small for every label, label every k-th.
    const int colStep = std::max(
        1, static_cast<int>(std::ceil(fm.horizontalAdvance(QStringLiteral("H00")) * 1.3 / g.cell)));
    const bool longHeads = g.cell > fm.horizontalAdvance(QStringLiteral("Head 00")) * 1.25;
    // Labels count from 1, like the heatmap grid's titles (indices in files count from 0).
    for (int h = 0; h < thumbs_.heads; h += colStep) {
        // Centred on its column, as wide as it needs (every colStep-th column has room).
        const QString text = (longHeads ? tr("Head %1") : tr("H%1")).arg(h + 1);
        const double w = std::max(g.cell, std::ceil(fm.horizontalAdvance(text)) + 2);
        const double cx = g.area.left() + (h + 0.5) * g.cell;
        out.push_back(
            {QRectF(cx - w / 2, kGridTop - 20, w, 18), text, false, int(Qt::AlignCenter)});
    }
    const int rowStep = std::max(1, static_cast<int>(std::ceil(fm.height() * 1.1 / g.cell)));
    const double left = leftBand(), rowH = std::max(g.cell, std::ceil(fm.height()));
    for (int l = 0; l < thumbs_.layers; l += rowStep)
        // Right-aligned against the grid, which is centred: labels stay next to their row, a
        // line of text tall even when the row is shorter (a clipped "Layer" read "Laver").
        out.push_back({QRectF(g.area.left() - left, g.area.top() + (l + 0.5) * g.cell - rowH / 2,
                              left - 8, rowH),
                       rowLabel(l), false, int(Qt::AlignRight | Qt::AlignVCenter)});
    if (hasKvGroups()) {
        const int size = thumbs_.heads / thumbs_.kvGroups;
        for (int k = 0; k < thumbs_.kvGroups; ++k) {
            const QString text = tr("KV %1").arg(k + 1);
            if (fm.horizontalAdvance(text) + 4 > size * g.cell) break;  // too narrow for any
            out.push_back({QRectF(g.area.left() + k * size * g.cell, g.area.bottom() + 5,
                                  size * g.cell, std::ceil(fm.height())),
                           text, false, int(Qt::AlignCenter)});
        }
    }
    // The legend's text beside its ramp, or under it when the canvas is too narrow.
    const QRectF ramp = legendRamp();
    const QString legend = legendText();
    const double legendW = std::ceil(fm.horizontalAdvance(legend)) + 1;
    if (ramp.right() + 8 + legendW <= width() - kRight)
        out.push_back({QRectF(ramp.right() + 8, ramp.top() - 4, legendW, ramp.height() + 8), legend,
                       false, int(Qt::AlignLeft | Qt::AlignVCenter)});
    else
        out.push_back({QRectF(ramp.left(), ramp.bottom() + 2, width() - kRight - ramp.left(),
                              fm.height() + 2),
                       fm.elidedText(legend, Qt::ElideRight, width() - kRight - ramp.left()), false,
                       int(Qt::AlignLeft | Qt::AlignVCenter)});
    return out;
}

void ModelGridCanvas::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);  // cells stay crisp squares
    const QPalette pal = palette();
    p.setPen(pal.color(QPalette::WindowText));
    if (!message_.isEmpty() || thumbs_.images.empty()) {
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   message_.isEmpty() ? tr("No attention to show") : message_);
        return;
    }
    QFont titleFont = font();
    titleFont.setBold(true);
    for (const Label& label : labels()) {
        p.setFont(label.bold ? titleFont : font());
        p.drawText(label.rect, label.flags, label.text);
    }
    p.setFont(font());
    const Geometry g = geometry();
    drawKvGroups(p, g);
    for (int l = 0; l < thumbs_.layers; ++l)
        for (int h = 0; h < thumbs_.heads; ++h) {
            QImage image = thumbs_.at(l, h);
            if (image.format() == QImage::Format_Indexed8) image.setColorTable(colors_);
            p.drawImage(g.thumb(l, h), image);
        }
    // The head the heatmap grid shows.
    if (layer_ >= 0 && layer_ < thumbs_.layers && head_ >= 0 && head_ < thumbs_.heads) {
        QPen pen(pal.color(QPalette::Highlight), std::max(2.0, g.cell * 0.04));
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        const double m = (g.cell - g.side) / 4;
        p.drawRect(g.thumb(layer_, head_).adjusted(-m, -m, m, m));
        p.setPen(pal.color(QPalette::WindowText));
    }
    QImage ramp(256, 1, QImage::Format_RGB32);
    for (int i = 0; i < 256; ++i)
        ramp.setPixel(i, 0, colorTable(colorMap_)[std::size_t(i)]);
    p.drawImage(legendRamp(), ramp);
}

void ModelGridCanvas::setColorMap(ColorMapKind kind) {
    if (kind == colorMap_) return;
    colorMap_ = kind;
    colors_ = model_grid::thumbnailColors(kind);
    update();
}

void ModelGridCanvas::mousePressEvent(QMouseEvent* event) {
    int layer = 0, head = 0;
    if (event->button() == Qt::LeftButton && cellAt(event->position(), &layer, &head))
        Q_EMIT cellClicked(layer, head);
    QWidget::mousePressEvent(event);
}

void ModelGridCanvas::contextMenuEvent(QContextMenuEvent* event) {
    int layer = 0, head = 0;
    if (cellAt(event->pos(), &layer, &head))
        Q_EMIT cellMenuRequested(layer, head, event->globalPos());
    else
        event->ignore();
}

void ModelGridCanvas::mouseDoubleClickEvent(QMouseEvent* event) {
    int layer = 0, head = 0;
    if (event->button() == Qt::LeftButton && cellAt(event->position(), &layer, &head))
        Q_EMIT cellDoubleClicked(layer, head);
    QWidget::mouseDoubleClickEvent(event);
}

void ModelGridCanvas::mouseMoveEvent(QMouseEvent* event) {
    int layer = -1, head = -1;
    if (!cellAt(event->position(), &layer, &head)) layer = head = -1;
    if (layer != hoverLayer_ || head != hoverHead_) {
        hoverLayer_ = layer;
        hoverHead_ = head;
        Q_EMIT cellHovered(layer, head);
    }
    QWidget::mouseMoveEvent(event);
}

void ModelGridCanvas::leaveEvent(QEvent* event) {
    if (hoverLayer_ >= 0) Q_EMIT cellHovered(-1, -1);
    hoverLayer_ = hoverHead_ = -1;
    QWidget::leaveEvent(event);
}

QString ModelGridCanvas::fullTitleAt(QPointF pos) const {
    const std::vector<Label> all = labels();
    for (const Label& l : all)
        if (l.bold && l.rect.contains(pos) && l.text != thumbs_.title) return thumbs_.title;
    return {};
}

bool ModelGridCanvas::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        // A head's numbers go to the line above the grid (cellHovered), never into a tooltip
        // that would cover the neighbouring head and take the next click; only an elided
        // title shows whole here.
        auto* help = static_cast<QHelpEvent*>(event);
        const QString title = fullTitleAt(help->pos());
        if (title.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), title, this, labels()[1].rect.toRect());
        return true;
    }
    return QWidget::event(event);
}
