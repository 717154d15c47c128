// AttnScope — writes any view as a PNG, SVG or PDF figure. GPL-3.0-or-later.
#include "export/figure_export.hpp"
#include "export/export_tr.hpp"
#include "export/output_device.hpp"

#include <QCoreApplication>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPdfWriter>
#include <QPointer>
#include <QSvgGenerator>
#include <QWidget>
#include <cstdint>
#include <new>
#include <string>
#include "views/qcp.hpp"

#include "attn/io/output/png_write.hpp"
#include "export/widget_painter.hpp"
#include "views/screen_only.hpp"
#include "views/scroll_frame.hpp"

namespace exporting {
namespace {

QString failure(const QString& path, const QString& why) {
    return tr("%1: %2").arg(QFileInfo(path).fileName(), why);
}

/// Temporarily gives the view the export size, with nothing scrolling (a figure shows all of
/// the view at the size asked for); restores the old geometry on destruction. What already was
/// so (the command line builds its view fitting, at the figure's size) is left alone: each
/// change re-lays out and redraws every plot of the view.
class SizeOverride {
  public:
    SizeOverride(QWidget* view, QSize size) : view_(view), old_(view->size()) {
        for (ScrollFrame* frame : ScrollFrame::setFittingIn(view_, true))
            fitted_.push_back(frame);
        if (view_->size() != size) view_->resize(size);
        settleLayout(view_);
    }
    ~SizeOverride() {
        for (const QPointer<ScrollFrame>& frame : fitted_)
            if (frame) frame->setFitting(false);
        if (view_->size() != old_) view_->resize(old_);
        settleLayout(view_);
    }
    SizeOverride(const SizeOverride&) = delete;
    SizeOverride& operator=(const SizeOverride&) = delete;

  private:
    QWidget* view_;
    QSize old_;
    QList<QPointer<ScrollFrame>> fitted_;  ///< the frames this turned fitting
};

QString writePng(QWidget* view, const QString& path, const Options& o) {
    const double scale = o.dpi / kLogicalDpi;
    const QSize pixels(qRound(o.size.width() * scale), qRound(o.size.height() * scale));
    // Opaque RGB: a figure has no transparency, and PNG then stores 3 bytes a pixel, not 4.
    QImage image(pixels, QImage::Format_RGB32);
    if (image.isNull()) return failure(path, tr("the image is too large to allocate"));
    image.fill(view->palette().color(QPalette::Window));
    {
        QCPPainter painter(&image);
        painter.setMode(QCPPainter::pmNoCaching);
        // Above 1× cosmetic (1-device-pixel) pens would look hairline-thin: scale them too,
        // exactly as QCustomPlot::savePng does.
        if (scale > 1.0) painter.setMode(QCPPainter::pmNonCosmetic);
        painter.scale(scale, scale);
        paintFigure(&painter, view, o.title);
    }
    // The resolution goes into the file only: a painter converts font point sizes with its
    // device's dpi, so an image tagged 192 dpi while painted would get twice-as-large text on
    // top of the painter's 2× scale. Painted at 96 dpi and scaled, the figure is the 96-dpi
    // layout at twice the pixels.
    const int dotsPerMeter = qRound(o.dpi / 0.0254);
    // Encoded by core: unfiltered rows at zlib level 1, a third of the time of libpng's adaptive
    // filters (QImageWriter) and a smaller file for a figure's flat colours; same pixels.
    std::string png;
    try {
        png = attn::io::encode_png_rgb(reinterpret_cast<const std::uint32_t*>(image.constBits()),
                                       image.width(), image.height(), image.bytesPerLine() / 4,
                                       std::uint32_t(dotsPerMeter));
    } catch (const std::bad_alloc&) {
        return failure(path, tr("not enough memory to encode the image"));
    }
    OutputDevice file(path);
    if (!file.open(QIODevice::WriteOnly)) return failure(path, file.errorString());
    if (file.write(png.data(), qint64(png.size())) != qint64(png.size()))
        return failure(path, file.errorString());
    if (!file.commit()) return failure(path, file.errorString());
    return {};
}

// SVG and PDF alike: text, lines and axes stay vectors; heatmaps go in as embedded images.
QString paintVectors(QPaintDevice* device, QWidget* view, const QString& path,
                     const QString& cannotStart, const QString& title) {
    QCPPainter painter;
    if (!painter.begin(device)) return failure(path, cannotStart);
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    paintFigure(&painter, view, title);
    painter.end();
    return {};
}

QString writeSvg(QWidget* view, const QString& path, const Options& o) {
    OutputDevice file(path);
    if (!file.open(QIODevice::WriteOnly)) return failure(path, file.errorString());
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(o.size);
    svg.setViewBox(QRect(QPoint(), o.size));
    svg.setResolution(qRound(kLogicalDpi));
    svg.setTitle(view->windowTitle().isEmpty() ? QStringLiteral("AttnScope") : view->windowTitle());
    svg.setDescription(tr("Exported by AttnScope"));
    if (QString error = paintVectors(&svg, view, path, tr("cannot start the SVG painter"), o.title);
        !error.isEmpty())
        return error;
    if (!file.commit()) return failure(path, file.errorString());
    return {};
}

QString writePdf(QWidget* view, const QString& path, const Options& o) {
    OutputDevice file(path);
    if (!file.open(QIODevice::WriteOnly)) return failure(path, file.errorString());
    {
        QPdfWriter pdf(&file);
        pdf.setCreator(QStringLiteral("AttnScope"));
        pdf.setTitle(view->windowTitle());
        // One page exactly the figure's size: logical pixels are 1/96 inch, points 1/72.
        const QSizeF points = QSizeF(o.size) * (72.0 / kLogicalDpi);
        pdf.setPageSize(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(qRound(kLogicalDpi));
        if (QString error =
                paintVectors(&pdf, view, path, tr("cannot start the PDF painter"), o.title);
            !error.isEmpty())
            return error;
    }
    if (!file.commit()) return failure(path, file.errorString());
    return {};
}

/// Hides what only helps on screen (hints, the hover readout and, unless kept, the selection
/// outlines) for the duration of an export.
class ScreenOnlyHidden {
  public:
    explicit ScreenOnlyHidden(QWidget* view) : view_(view) {
        for (QWidget* w : view->findChildren<QWidget*>())
            // isHidden, not isVisible: a view exported without being shown on screen (the
            // command line, tests) has no visible children, yet they would be painted.
            if (w->property(kScreenOnlyProperty).toBool() && !w->isHidden()) {
                w->setVisible(false);
                widgets_.push_back(w);
            }
    }
    /// After the view is laid out at the export size (a relayout shows the outlines again).
    void hideSelection(bool keepSelection) {
        QList<QCustomPlot*> plots = view_->findChildren<QCustomPlot*>();
        if (auto* self = qobject_cast<QCustomPlot*>(view_)) plots.push_back(self);
        for (QCustomPlot* plot : plots)
            for (int i = 0; !keepSelection && i < plot->itemCount(); ++i)
                if (QCPAbstractItem* item = plot->item(i);
                    item->visible() && item->property(kSelectionMarkProperty).toBool()) {
                    item->setVisible(false);
                    items_.push_back(item);
                }
    }
    ~ScreenOnlyHidden() {
        for (QWidget* w : widgets_)
            w->setVisible(true);
        for (QCPAbstractItem* item : items_) {
            item->setVisible(true);
            item->parentPlot()->replot(QCustomPlot::rpQueuedReplot);
        }
    }
    ScreenOnlyHidden(const ScreenOnlyHidden&) = delete;
    ScreenOnlyHidden& operator=(const ScreenOnlyHidden&) = delete;

  private:
    QWidget* view_;
    QList<QWidget*> widgets_;
    QList<QCPAbstractItem*> items_;
};

/// Hides, for the duration of an export, everything of VIEW beside the path down to its figure
/// (the fields, buttons, progress and lists that make the figure), so that the layout gives the
/// figure all of the view.
class OthersHidden {
  public:
    OthersHidden(QWidget* view, QWidget* figure) {
        for (QWidget* keep = figure; keep && keep != view; keep = keep->parentWidget())
            for (QObject* o : keep->parentWidget()->children())
                if (auto* w = qobject_cast<QWidget*>(o);
                    w && w != keep && !w->isWindow() && !w->isHidden()) {
                    w->setVisible(false);
                    hidden_.push_back(w);
                }
        if (!hidden_.isEmpty()) settleLayout(view);
    }
    ~OthersHidden() {
        for (const QPointer<QWidget>& w : hidden_)
            if (w) w->setVisible(true);
    }
    OthersHidden(const OthersHidden&) = delete;
    OthersHidden& operator=(const OthersHidden&) = delete;

  private:
    QList<QPointer<QWidget>> hidden_;
};

}  // namespace

QWidget* figureOf(QWidget* view) {
    if (!view) return view;
    for (QWidget* w : view->findChildren<QWidget*>())
        if (w->property(kFigureProperty).toBool()) return w;
    return view;
}

int titleBandHeight(const QString& title, const QFont& font) {
    if (title.isEmpty()) return 0;
    QFont f = font;
    f.setPointSizeF(f.pointSizeF() * 1.15);
    f.setWeight(QFont::DemiBold);
    return QFontMetrics(f).height() + 10;
}

void paintFigure(QCPPainter* painter, QWidget* view, const QString& title) {
    const int band = titleBandHeight(title, view->font());
    if (band > 0) {
        QFont f = view->font();
        f.setPointSizeF(f.pointSizeF() * 1.15);
        f.setWeight(QFont::DemiBold);
        painter->save();
        painter->setFont(f);
        painter->setPen(view->palette().color(QPalette::WindowText));
        painter->drawText(QRect(0, 0, view->width(), band), Qt::AlignCenter, title);
        painter->restore();
        painter->translate(0, band);
    }
    paintWidgetTree(painter, view);
}

QString exportFigure(QWidget* view, const QString& path, const Options& options) {
    if (!view) return failure(path, tr("there is no view to export"));
    if (options.size.width() < 16 || options.size.height() < 16 || options.size.width() > 20000 ||
        options.size.height() > 20000)
        return failure(path, tr("size %1×%2 is outside 16…20000 pixels")
                                 .arg(options.size.width())
                                 .arg(options.size.height()));
    if (options.dpi < 10 || options.dpi > 2400)
        return failure(path, tr("%1 dpi is outside 10…2400").arg(options.dpi));
    ScreenOnlyHidden hidden(view);
    QWidget* figure = figureOf(view);
    OthersHidden alone(view, figure);
    // The view grows by what lies around its figure (its margins) so that the figure gets the
    // size asked for.
    const QSize around = view->size() - figure->size();
    // A title grows the figure by its band above the view, which keeps the asked size: laid out
    // in less, a view at its minimum height ran its colour bar and labels off the page.
    SizeOverride sized(view, options.size + (figure == view ? QSize(0, 0) : around));
    Options titled = options;
    titled.size.rheight() += titleBandHeight(options.title, figure->font());
    hidden.hideSelection(options.selection);
    switch (options.format) {
        case Format::Png:
            return writePng(figure, path, titled);
        case Format::Svg:
            return writeSvg(figure, path, titled);
        case Format::Pdf:
            return writePdf(figure, path, titled);
        case Format::Npy:
        case Format::Csv:
        case Format::Npz:
            break;
    }
    return failure(path, tr("a view's figure is written as PNG, SVG or PDF"));
}

}  // namespace exporting
