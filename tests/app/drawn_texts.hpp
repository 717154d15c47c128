// AttnScope app tests — the texts a widget paints and where: its paintEvent replayed into a paint
// device that records every text item (and draws nothing), so a test reads what a painted view
// shows (a cell's token, a key's number) and whether it lies inside the widget, without knowing
// how the view lays it out. GPL-3.0-or-later.
#pragma once

#include <QFontMetricsF>
#include <QImage>
#include <QPaintEngine>
#include <QPainter>
#include <QWidget>
#include <vector>

namespace test_support {

/// One text a widget painted: the string and its box in the widget's coordinates (the part its
/// painter's clip leaves).
struct DrawnText {
    QString text;
    QRectF box;
};

/// A paint device that keeps the texts painted on it: an image (its metrics are the screen's,
/// so fonts lay out as on screen) whose engine records text and draws nothing.
class TextRecorder : public QImage {
  public:
    explicit TextRecorder(const QWidget* widget)
        : QImage(widget->size().expandedTo(QSize(1, 1)), QImage::Format_ARGB32) {
        setDotsPerMeterX(qRound(widget->logicalDpiX() / 0.0254));
        setDotsPerMeterY(qRound(widget->logicalDpiY() / 0.0254));
    }
    QPaintEngine* paintEngine() const override { return &engine_; }
    const std::vector<DrawnText>& texts() const { return engine_.texts; }

  private:
    struct Engine : QPaintEngine {
        // Every feature: the painter hands over text untransformed, with its transform.
        Engine() : QPaintEngine(AllFeatures) {}
        bool begin(QPaintDevice*) override { return true; }
        bool end() override { return true; }
        void updateState(const QPaintEngineState&) override {}
        void drawPixmap(const QRectF&, const QPixmap&, const QRectF&) override {}
        void drawPath(const QPainterPath&) override {}
        void drawPolygon(const QPointF*, int, PolygonDrawMode) override {}
        void drawRects(const QRectF*, int) override {}
        void drawLines(const QLineF*, int) override {}
        void drawEllipse(const QRectF&) override {}
        void drawImage(const QRectF&, const QImage&, const QRectF&,
                       Qt::ImageConversionFlags) override {}
        void drawTextItem(const QPointF& p, const QTextItem& item) override {
            const QFontMetricsF fm(item.font());
            const QRectF box(p.x(), p.y() - fm.ascent(), fm.horizontalAdvance(item.text()),
                             fm.ascent() + fm.descent());
            QRectF shown = painter()->combinedTransform().mapRect(box);
            // What the painter's clip cuts away is not drawn (a scrolled cell's number).
            if (painter()->hasClipping())
                shown = shown.intersected(
                    painter()->combinedTransform().mapRect(painter()->clipBoundingRect()));
            if (!shown.isEmpty()) texts.push_back({item.text(), shown});
        }
        Type type() const override { return User; }
        std::vector<DrawnText> texts;
    };
    mutable Engine engine_;
};

/// The texts WIDGET paints itself (not its children), in its coordinates.
inline std::vector<DrawnText> drawnTexts(QWidget* widget) {
    TextRecorder device(widget);
    widget->render(&device, QPoint(), QRegion(), QWidget::RenderFlags());
    return device.texts();
}

}  // namespace test_support
