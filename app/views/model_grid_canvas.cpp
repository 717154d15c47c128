// AttnScope — paints the layers × heads thumbnails of the model view. GPL-3.0-or-later.
#include "views/model_grid_canvas.hpp"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <cmath>

namespace {
constexpr double kLeft = 64, kGridTop = 44, kRight = 12, kBottom = 46, kGap = 0.1;
}

ModelGridCanvas::ModelGridCanvas(QWidget* parent) : QWidget(parent) {
    setMouseTracking(false);
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

void ModelGridCanvas::drawKvGroups(QPainter& p, const Geometry& g) const {
    const int groups = thumbs_.kvGroups;
    if (groups <= 0 || groups >= thumbs_.heads || thumbs_.heads % groups != 0) return;
    // Grouped-query attention: each group of heads sharing one key/value head is bracketed
    // below the grid and labelled, and a line parts the groups inside the grid.
    const int size = thumbs_.heads / groups;
    const QFontMetricsF fm(font());
    p.save();
    p.setPen(QPen(palette().color(QPalette::WindowText), 1));
    const double bottom = g.area.bottom() + 4;
    for (int k = 0; k < groups; ++k) {
        const double left = g.area.left() + k * size * g.cell, right = left + size * g.cell;
        p.drawLine(QPointF(left + 2, bottom), QPointF(right - 2, bottom));
        if (fm.horizontalAdvance(QStringLiteral("KV 00")) < size * g.cell)
            p.drawText(QRectF(left, bottom + 1, size * g.cell, 16), Qt::AlignCenter,
                       tr("KV %1").arg(k + 1));
        if (k > 0) p.drawLine(QPointF(left, g.area.top()), QPointF(left, g.area.bottom()));
    }
    p.restore();
}

ModelGridCanvas::Geometry ModelGridCanvas::geometry() const {
    Geometry g;
    if (thumbs_.layers <= 0 || thumbs_.heads <= 0) return g;
    const double w = width() - kLeft - kRight, h = height() - kGridTop - kBottom;
    g.cell = std::max(4.0, std::min(w / thumbs_.heads, h / thumbs_.layers));
    g.side = g.cell * (1 - kGap);
    const double gw = g.cell * thumbs_.heads, gh = g.cell * thumbs_.layers;
    // Centre the grid horizontally in the space right of the row labels.
    g.area = QRectF(kLeft + std::max(0.0, (w - gw) / 2), kGridTop, gw, gh);
    return g;
}

bool ModelGridCanvas::cellAt(QPointF pos, int* layer, int* head) const {
    const Geometry g = geometry();
    if (g.cell <= 0 || !g.area.contains(pos)) return false;
    *head = std::clamp(static_cast<int>((pos.x() - g.area.left()) / g.cell), 0, thumbs_.heads - 1);
    *layer = std::clamp(static_cast<int>((pos.y() - g.area.top()) / g.cell), 0, thumbs_.layers - 1);
    return true;
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
    p.setFont(titleFont);
    const QString subtitle = tr("%1 layers × %2 heads, %3 × %4 tokens")
                                 .arg(thumbs_.layers)
                                 .arg(thumbs_.heads)
                                 .arg(thumbs_.queries)
                                 .arg(thumbs_.keys);
    const QFontMetrics titleMetrics(titleFont);
    p.drawText(QRectF(8, 2, width() - 16, 20), Qt::AlignLeft | Qt::AlignVCenter,
               titleMetrics.elidedText(thumbs_.title, Qt::ElideRight, width() / 2));
    p.setFont(font());
    p.drawText(QRectF(8, 2, width() - 16, 20), Qt::AlignRight | Qt::AlignVCenter, subtitle);

    const Geometry g = geometry();
    const QFontMetricsF fm(font());
    // Column and row labels; when cells are too small for every label, label every k-th.
    const int colStep = std::max(
        1, static_cast<int>(std::ceil(fm.horizontalAdvance(QStringLiteral("H00")) * 1.3 / g.cell)));
    // Labels count from 1, like the heatmap grid's titles (indices in files count from 0).
    for (int h = 0; h < thumbs_.heads; h += colStep) {
        const QRectF r(g.area.left() + h * g.cell, kGridTop - 20, g.cell * colStep, 18);
        p.drawText(QRectF(r.left(), r.top(), g.cell, r.height()), Qt::AlignCenter,
                   (g.cell > fm.horizontalAdvance(QStringLiteral("Head 00")) * 1.25 ? tr("Head %1")
                                                                                    : tr("H%1"))
                       .arg(h + 1));
    }
    drawKvGroups(p, g);
    const int rowStep = std::max(1, static_cast<int>(std::ceil(fm.height() * 1.1 / g.cell)));
    for (int l = 0; l < thumbs_.layers; l += rowStep) {
        // Right-aligned against the grid, which is centred: labels stay next to their row.
        const QRectF r(g.area.left() - kLeft, g.area.top() + l * g.cell, kLeft - 8, g.cell);
        p.drawText(r, Qt::AlignRight | Qt::AlignVCenter,
                   thumbs_.layers == 1 ? tr("Heads") : tr("Layer %1").arg(l + 1));
    }
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
    // Below the key/value groups' labels when there are groups (kBottom holds both).
    const bool grouped = thumbs_.kvGroups > 0 && thumbs_.kvGroups < thumbs_.heads;
    paintLegend(p, QRectF(g.area.left(), g.area.bottom() + (grouped ? 26 : 12),
                          std::min(g.area.width(), 360.0), 14));
}

void ModelGridCanvas::setColorMap(ColorMapKind kind) {
    if (kind == colorMap_) return;
    colorMap_ = kind;
    colors_ = model_grid::thumbnailColors(kind);
    update();
}

void ModelGridCanvas::paintLegend(QPainter& p, const QRectF& rect) const {
    QImage ramp(256, 1, QImage::Format_RGB32);
    for (int i = 0; i < 256; ++i)
        ramp.setPixel(i, 0, colorTable(colorMap_)[std::size_t(i)]);
    p.drawImage(QRectF(rect.left(), rect.top(), rect.width() * 0.55, rect.height()), ramp);
    p.setPen(palette().color(QPalette::WindowText));
    const QRectF text(rect.left() + rect.width() * 0.55 + 8, rect.top() - 4,
                      width() - rect.left() - rect.width() * 0.55 - 8, rect.height() + 8);
    p.drawText(text, Qt::AlignLeft | Qt::AlignVCenter,
               thumbs_.weightsOnly ? tr("0 → each head's largest weight (loaded weights)")
                                   : tr("0 → each head's largest weight; grey: masked"));
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

bool ModelGridCanvas::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        int layer = 0, head = 0;
        if (cellAt(help->pos(), &layer, &head)) {
            const auto i = static_cast<std::size_t>(layer * thumbs_.heads + head);
            QToolTip::showText(help->globalPos(),
                               tr("Layer %1, head %2\nmean entropy %3 nats, max weight %4\n"
                                  "Click to open it in the heatmap grid")
                                   .arg(layer + 1)
                                   .arg(head + 1)
                                   .arg(thumbs_.entropy[i], 0, 'f', 2)
                                   .arg(thumbs_.maxWeight[i], 0, 'f', 3),
                               this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}
