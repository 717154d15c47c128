// QtTest: exported pictures read back by their content. A heatmap's PNG cells carry the colour
// the colour map gives their weight (rows = queries top to bottom, columns = keys left to right);
// the SVG's and the PDF's token labels sit beside the rows and columns they name; a line of the
// head view is as opaque as its weight. A reversed colour map, transposed cells or labels in
// another order fail.
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include <algorithm>
#include <array>
#include <cmath>

#include "app_test_support.hpp"
#include "export/figure_export.hpp"
#include "export/widget_painter.hpp"
#include "views/color_maps.hpp"
#include "views/heatmap_grid.hpp"
#include "views/lines_view.hpp"
#include "views/screen_only.hpp"
#include "views_test_support.hpp"

namespace {

const std::vector<std::string> kTokens = {"the", "cat", "sat", "on", "my", "mat"};

/// Six distinct tokens, two heads, a window of radius 1 (masked cells far from the diagonal) and
/// a low temperature, so weights spread over most of the colour map and the matrices are far
/// from symmetric.
attn::SceneSpec pictureSpec() {
    attn::SceneSpec spec;
    spec.tokens = kTokens;
    spec.heads = 2;
    spec.temperature = 0.35f;
    spec.mask.kind = attn::MaskKind::SlidingWindow;
    spec.mask.window = 1;
    return spec;
}

/// The colour-map level (0…255) whose colour is nearest to c, and how far it is (max channel).
std::pair<int, int> nearestLevel(ColorMapKind kind, QRgb c) {
    int best = -1, dist = 1 << 30;
    const std::array<QRgb, 256>& table = colorTable(kind);
    for (int i = 0; i < 256; ++i) {
        const QRgb t = table[std::size_t(i)];
        const int d = std::max({std::abs(qRed(t) - qRed(c)), std::abs(qGreen(t) - qGreen(c)),
                                std::abs(qBlue(t) - qBlue(c))});
        if (d < dist) best = i, dist = d;
    }
    return {best, dist};
}

/// Hides what an export hides (the screen-only readout and notes) and lays the view out as the
/// export will, so positions taken from the widgets are the figure's.
void layOutAsExported(QWidget* view) {
    for (QWidget* w : view->findChildren<QWidget*>())
        if (w->property(kScreenOnlyProperty).toBool()) w->setVisible(false);
    exporting::settleLayout(view);
}

/// Centre of cell (query, key) of head h, in the grid's (= the figure's) logical pixels.
QPointF cellCentre(HeatmapGrid* grid, int h, int query, int key) {
    HeadHeatmap* head = grid->head(h);
    const QPointF local(head->xAxis->coordToPixel(key), head->yAxis->coordToPixel(query));
    return QPointF(head->mapTo(grid, QPoint(0, 0))) + local;
}

/// Every <text> of an SVG with its anchor in document coordinates (the transforms of its
/// enclosing groups applied: QSvgGenerator writes matrix(…) on <g>).
struct SvgText {
    QString text;
    QPointF at;
};
std::vector<SvgText> svgTexts(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    QXmlStreamReader xml(&file);
    std::vector<QTransform> stack{QTransform()};
    std::vector<SvgText> out;
    const QRegularExpression matrix(QStringLiteral("matrix\\(([^)]*)\\)"));
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            QTransform t;
            const auto m =
                matrix.match(xml.attributes().value(QStringLiteral("transform")).toString());
            if (m.hasMatch()) {
                const QStringList v = m.captured(1).split(
                    QRegularExpression(QStringLiteral("[ ,]+")), Qt::SkipEmptyParts);
                if (v.size() == 6)
                    t = QTransform(v[0].toDouble(), v[1].toDouble(), v[2].toDouble(),
                                   v[3].toDouble(), v[4].toDouble(), v[5].toDouble());
            }
            stack.push_back(t * stack.back());
            if (xml.name() == QStringLiteral("text")) {
                const QPointF p(xml.attributes().value(QStringLiteral("x")).toDouble(),
                                xml.attributes().value(QStringLiteral("y")).toDouble());
                const QPointF at = stack.back().map(p);
                out.push_back({xml.readElementText().trimmed(), at});
                stack.pop_back();  // readElementText consumed the end element
            }
        } else if (xml.isEndElement()) {
            stack.pop_back();
        }
    }
    return xml.hasError() ? std::vector<SvgText>{} : out;
}

}  // namespace

class PictureContentTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    SceneResultPtr result_;
    std::unique_ptr<HeatmapGrid> grid_;

    /// The grid with the scene, at 900 × 600, laid out as it is exported.
    void freshGrid(const HeatmapStyle& style) {
        grid_ = std::make_unique<HeatmapGrid>();
        grid_->resize(900, 600);
        grid_->setStyle(style);
        grid_->setResult(result_);
        Scheduler::instance().waitForIdle();
        layOutAsExported(grid_.get());
        for (int h = 0; h < grid_->headCount(); ++h)
            grid_->head(h)->ensureRefreshed();
    }

    /// The largest weight of every head: the top of the shared linear colour range [0, max].
    double sharedMax() const {
        double hi = 0;
        for (const attn::HeadResult& h : result_->heads)
            hi = std::max(hi, double(h.weights.maxCoeff()));
        return hi;
    }

    /// Exports the grid at its own size as `name` (format by extension); the path, or empty
    /// after a warning naming the export's error.
    QString exportGrid(exporting::Format format, const char* name) {
        exporting::Options o;
        o.format = format;
        o.size = grid_->size();
        const QString path = dir_.filePath(QString::fromLatin1(name));
        const QString error = exporting::exportFigure(grid_.get(), path, o);
        if (error.isEmpty()) return path;
        qWarning("%s", qPrintable(error));
        return {};
    }

    /// Head 0's plot area in the figure, and the distance between its rows.
    QRect plotOfHead0() const {
        HeadHeatmap* head = grid_->head(0);
        return head->axisRect()->rect().translated(head->mapTo(grid_.get(), QPoint()));
    }
    double rowPitch() const {
        return cellCentre(grid_.get(), 0, 1, 1).y() - cellCentre(grid_.get(), 0, 0, 0).y();
    }

    /// Checks every allowed cell's colour against `kind`'s colour of its weight; returns the
    /// number of cells whose transposed weight would have been told apart (so the check can
    /// see a transposition).
    int checkCells(ColorMapKind kind) {
        const QImage png(exportGrid(exporting::Format::Png, "grid.png"));
        if (png.size() != grid_->size()) return -1;
        const double hi = sharedMax();
        int telling = 0, checked = 0;
        for (int h = 0; h < grid_->headCount(); ++h) {
            const attn::Matrix& w = result_->heads[std::size_t(h)].weights;
            for (int q = 0; q < int(kTokens.size()); ++q)
                for (int k = 0; k < int(kTokens.size()); ++k) {
                    const QPoint px = cellCentre(grid_.get(), h, q, k).toPoint();
                    const auto [level, dist] = nearestLevel(kind, png.pixel(px));
                    if (std::abs(q - k) > 1) {
                        // A masked cell is not drawn: the plot's background, far from the map.
                        if (kind == ColorMapKind::Viridis && dist < 40) return -2;
                        continue;
                    }
                    const int want = int(std::lround(double(w(q, k)) / hi * 255));
                    const int transposed = int(std::lround(double(w(k, q)) / hi * 255));
                    if (dist > 3 || std::abs(level - want) > 2) {
                        qWarning(
                            "head %d cell (%d, %d): weight %.4f wants level %d, drawn %d "
                            "(colour #%06x, %d off the map)",
                            h, q, k, double(w(q, k)), want, level, png.pixel(px) & 0xffffff, dist);
                        return -3;
                    }
                    telling += std::abs(transposed - want) > 4;
                    ++checked;
                }
        }
        return checked == 2 * 16 ? telling : -4;  // 6 + 5 + 5 allowed cells per head
    }

  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QVERIFY(dir_.isValid());
        result_ = views_test::computed(pictureSpec());
    }

    void heatmapCellsHaveTheColourOfTheirWeight() {
        for (ColorMapKind kind : {ColorMapKind::Viridis, ColorMapKind::Greys}) {
            HeatmapStyle style;
            style.colorMap = kind;
            freshGrid(style);
            // Rows go down with the query, columns right with the key.
            const QPointF a = cellCentre(grid_.get(), 0, 0, 0),
                          b = cellCentre(grid_.get(), 0, 5, 5);
            QVERIFY2(b.y() > a.y() + 40 && b.x() > a.x() + 40, "query 0 on top, key 0 on the left");
            const int telling = checkCells(kind);
            QVERIFY2(telling >= 0, qPrintable(QStringLiteral("cells wrong (%1)").arg(telling)));
            // At least 8 cells would show another colour were the matrix drawn transposed.
            QVERIFY2(telling >= 8, qPrintable(QString::number(telling)));
        }
    }

    void svgLabelsSitBesideTheirRowsAndColumns() {
        freshGrid(HeatmapStyle{});
        const QString path = exportGrid(exporting::Format::Svg, "grid.svg");
        QVERIFY(!path.isEmpty());
        const std::vector<SvgText> texts = svgTexts(path);
        QVERIFY2(!texts.empty(), "the SVG parses and has text");
        const QRect plot = plotOfHead0();
        const double cell = rowPitch();
        for (int i = 0; i < int(kTokens.size()); ++i) {
            const QString token = QString::fromStdString(kTokens[std::size_t(i)]);
            const QPointF c = cellCentre(grid_.get(), 0, i, i);
            bool row = false, column = false;
            for (const SvgText& t : texts) {
                if (t.text != token) continue;
                // Query labels left of head 0's plot, level with the row (the baseline sits
                // within a cell of its centre); key labels below or above it, under the column.
                row = row || (t.at.x() < plot.left() && t.at.x() > plot.left() - 120 &&
                              std::abs(t.at.y() - c.y()) < cell / 2);
                column = column || ((t.at.y() > plot.bottom() || t.at.y() < plot.top()) &&
                                    std::abs(t.at.x() - c.x()) < cell / 2);
            }
            QVERIFY2(row, qPrintable(token + QStringLiteral(": no label beside its row")));
            QVERIFY2(column, qPrintable(token + QStringLiteral(": no label under its column")));
        }
    }

    void pdfLabelsSitBesideTheirRows() {
        freshGrid(HeatmapStyle{});
        const QString path = exportGrid(exporting::Format::Pdf, "grid.pdf");
        QVERIFY(!path.isEmpty());
        // poppler-utils (scripts/common.sh) gives every word with its box, in points from the
        // page's top left; the page is the figure at 72/96 points a pixel.
        QProcess pdftotext;
        pdftotext.start(QStringLiteral("pdftotext"),
                        {QStringLiteral("-bbox"), path, QStringLiteral("-")});
        QVERIFY2(pdftotext.waitForFinished(-1) && pdftotext.exitCode() == 0,
                 "pdftotext -bbox runs (poppler-utils, installed by scripts/common.sh)");
        const QString html = QString::fromUtf8(pdftotext.readAllStandardOutput());
        const QRegularExpression word(
            QStringLiteral("<word xMin=\"([\\d.]+)\" yMin=\"([\\d.]+)\" xMax=\"([\\d.]+)\" "
                           "yMax=\"([\\d.]+)\">([^<]*)</word>"));
        const QRect plot = plotOfHead0();
        const double cell = rowPitch();
        const double px = 96.0 / 72.0;
        for (int i = 0; i < int(kTokens.size()); ++i) {
            const QPointF c = cellCentre(grid_.get(), 0, i, i);
            bool row = false;
            for (auto it = word.globalMatch(html); it.hasNext();) {
                const auto m = it.next();
                if (m.captured(5) != QString::fromStdString(kTokens[std::size_t(i)])) continue;
                const QRectF box(QPointF(m.captured(1).toDouble(), m.captured(2).toDouble()) * px,
                                 QPointF(m.captured(3).toDouble(), m.captured(4).toDouble()) * px);
                row = row || (box.right() <= plot.left() + 1 && box.right() > plot.left() - 40 &&
                              std::abs(box.center().y() - c.y()) < cell / 2);
            }
            QVERIFY2(row, qPrintable(QStringLiteral("%1: no PDF label beside row %2")
                                         .arg(QString::fromStdString(kTokens[std::size_t(i)]))
                                         .arg(i)));
        }
    }

    void linesAreAsOpaqueAsTheirWeight() {
        LinesView view;
        view.resize(700, 400);
        view.setResult(result_);
        view.setHeadVisible(1, false);  // head 0's lines alone
        exporting::settleLayout(&view);
        // Hovering query 3 leaves its lines alone: they fan out and part at mid-width.
        const int q = 3;
        views_test::hover(&view, view.queryRect(q).center());
        QCOMPARE(view.hoveredQuery(), q);
        exporting::Options o;
        o.format = exporting::Format::Png;
        o.size = view.size();
        const QString path = dir_.filePath(QStringLiteral("lines.png"));
        QCOMPARE(exporting::exportFigure(&view, path, o), QString());
        const QImage png(path);
        QCOMPARE(png.size(), view.size());
        // The background as painted: below the last row, where nothing is drawn.
        const int xm = (view.queryRect(0).right() + view.keyRect(0).left()) / 2;
        const QColor bg = png.pixelColor(xm, png.height() - 3), ink = headColor(0);
        // The channel where the head's colour and the background differ most measures alpha.
        const auto channel = [](QColor c, int i) {
            return i == 0 ? c.red() : i == 1 ? c.green() : c.blue();
        };
        int ch = 0;
        for (int i = 1; i < 3; ++i)
            if (std::abs(channel(bg, i) - channel(ink, i)) >
                std::abs(channel(bg, ch) - channel(ink, ch)))
                ch = i;
        const double x0 = view.queryRect(0).x() + view.queryRect(0).width() + 4;
        const double x1 = view.keyRect(0).x() - 4;
        const attn::Matrix& w = result_->heads[0].weights;
        int checked = 0;
        for (int k = q - 1; k <= q + 1; ++k) {  // the keys its window lets it see
            const double y0 = view.queryRect(q).center().y() + 0.5;
            const double y1 = view.keyRect(k).center().y() + 0.5;
            const double ym = y0 + (y1 - y0) * (xm - x0) / (x1 - x0);
            // The most covered pixel across the 2-pixel line is the line's own colour.
            double alpha = 0;
            for (int y = int(ym) - 2; y <= int(ym) + 2; ++y) {
                const QColor p = png.pixelColor(xm, y);
                alpha = std::max(alpha, double(channel(bg, ch) - channel(p, ch)) /
                                            (channel(bg, ch) - channel(ink, ch)));
            }
            QVERIFY2(std::abs(alpha - double(w(q, k))) < 0.03,
                     qPrintable(QStringLiteral("line %1→%2: opacity %3, weight %4")
                                    .arg(q)
                                    .arg(k)
                                    .arg(alpha)
                                    .arg(double(w(q, k)))));
            ++checked;
        }
        QCOMPARE(checked, 3);
    }
};

QTEST_MAIN(PictureContentTest)
#include "picture_content_test.moc"
