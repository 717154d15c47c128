// QtTest: the Export dialog starts in the last export folder, follows a typed extension,
// remembers the resolution, adds a title; figures leave out the selection outlines unless
// asked. GPL-3.0-or-later.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QImage>
#include <QLineEdit>
#include <QSettings>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "app_test_support.hpp"
#include "export/export_controller.hpp"
#include "export/export_dialog.hpp"
#include "export/figure_export.hpp"
#include "io/file_controller.hpp"
#include "settings_keys.hpp"
#include "views/heatmap_grid.hpp"
#include "views/plot_theme.hpp"

namespace {

/// Pixels of exactly colour c in image.
int countColour(const QImage& image, QRgb c) {
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            n += (image.pixel(x, y) & 0xffffff) == (c & 0xffffff);
    return n;
}

/// Pixels in rows [y0, y1) that differ from the image's top-left (background) colour.
int inkInRows(const QImage& image, int y0, int y1) {
    const QRgb bg = image.pixel(0, 0);
    int n = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = 0; x < image.width(); ++x)
            n += image.pixel(x, y) != bg;
    return n;
}

}  // namespace

class ExportDialogTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void startsInTheLastExportFolderNeverBesideTheData() {
        QTemporaryDir data, exports;
        QSettings().setValue(settings_keys::kLastDirectory, data.path());  // opened data there
        QSettings().remove(settings_keys::kLastExportDirectory);
        QVERIFY(ExportDialog::startFolder() != data.path());
        QSettings().setValue(settings_keys::kLastExportDirectory, exports.path());
        QCOMPARE(ExportDialog::startFolder(), exports.path());
    }

    void formatFollowsTheTypedExtension() {
        ExportDialog dialog(QStringLiteral("Heads"), QSize(800, 600),
                            QDir::temp().filePath(QStringLiteral("heads.png")));
        dialog.show();
        QCOMPARE(dialog.formatBox()->currentText(), QStringLiteral("PNG image"));
        QLineEdit* path = dialog.pathEdit();
        path->setFocus();
        path->end(false);
        for (int i = 0; i < 3; ++i)
            QTest::keyClick(path, Qt::Key_Backspace);
        QTest::keyClicks(path, QStringLiteral("svg"));
        // Shown at once, without leaving the field, and the path is left as typed.
        QCOMPARE(dialog.formatBox()->currentText(), QStringLiteral("SVG vector drawing"));
        QVERIFY(path->text().endsWith(QStringLiteral("heads.svg")));
        QCOMPARE(dialog.options().format, exporting::Format::Svg);
        QVERIFY(!dialog.dpiBox()->isEnabled());
        for (int i = 0; i < 3; ++i)
            QTest::keyClick(path, Qt::Key_Backspace);
        QTest::keyClicks(path, QStringLiteral("csv"));
        QCOMPARE(dialog.formatBox()->currentText(), QStringLiteral("Numbers: CSV table"));
        QVERIFY(!dialog.titleBox()->isEnabled());
    }

    void remembersResolutionAndFolder() {
        QTemporaryDir exports;
        {
            ExportDialog dialog(QStringLiteral("Heads"), QSize(800, 600),
                                exports.filePath(QStringLiteral("a.png")));
            dialog.dpiBox()->setValue(300);
            dialog.rememberChoices();
        }
        ExportDialog again(QStringLiteral("Heads"), QSize(800, 600), QString());
        QCOMPARE(again.dpiBox()->value(), 300.0);
        QCOMPARE(ExportDialog::startFolder(), exports.path());
    }

    void titleAndSelectionOutlines() {
        QTemporaryDir dir;
        MainWindow w;
        exporting::ExportController exporter(&w);
        test_support::showWindow(w);
        w.scene()->setSelection(Selection{2, 3, 0});
        QCoreApplication::processEvents();
        HeatmapGrid* grid = w.heatmapGrid();
        // The offered title names what is shown.
        grid->setFocusedHead(1);
        QCOMPARE(exporter.figureTitle(grid),
                 QStringLiteral("synthetic scene (seed 1992) · head 2"));
        grid->setFocusedHead(-1);
        QCOMPARE(exporter.figureTitle(grid), QStringLiteral("synthetic scene (seed 1992)"));

        exporting::Options o;
        o.size = QSize(900, 700);
        const QString plain = dir.filePath(QStringLiteral("plain.png"));
        const QString marked = dir.filePath(QStringLiteral("marked.png"));
        const QString titled = dir.filePath(QStringLiteral("titled.png"));
        QVERIFY(exporter.exportView(grid, plain, o).isEmpty());
        o.selection = true;
        QVERIFY(exporter.exportView(grid, marked, o).isEmpty());
        o.selection = false;
        o.title = QStringLiteral("A title line");
        QVERIFY(exporter.exportView(grid, titled, o).isEmpty());
        const QRgb outline = selectionColor(grid->palette()).rgb();
        QCOMPARE(countColour(QImage(plain), outline), 0);
        QVERIFY(countColour(QImage(marked), outline) > 50);
        // The title band has ink; without a title the same rows are the heads' empty margin.
        // Issue 26, item 5: the title grows the figure by its band; below it is the untitled
        // figure, pixel for pixel (nothing pushed off the bottom).
        const QImage t(titled), p(plain);
        const int band = exporting::titleBandHeight(o.title, grid->font());
        QVERIFY(band > 10);
        QCOMPARE(t.size(), p.size() + QSize(0, band));
        const QImage below =
            t.copy(0, band, p.width(), p.height()).convertToFormat(QImage::Format_RGB32);
        const QImage untitled = p.convertToFormat(QImage::Format_RGB32);
        qsizetype differ = 0;
        for (int y = 0; y < p.height(); ++y)
            for (int x = 0; x < p.width(); ++x)
                differ += below.pixel(x, y) != untitled.pixel(x, y);
        // The same layout (a squeezed one moves every head, label and the colour bar); only
        // antialiased edges may differ.
        QVERIFY2(differ < p.width() * p.height() / 200, qPrintable(QString::number(differ)));
        QVERIFY(inkInRows(t, 2, band - 2) > 100);
        // The on-screen readout and note are not in the figure.
        QVERIFY(grid->readout()->isVisible());
    }

    // Issue 26 item 5 on real data: the offered title names the file, the layer and the head
    // shown, and a title grows an SVG's and a PDF's page by its band as it grows a PNG.
    void loadedTitleGrowsSvgAndPdf() {
        QTemporaryDir dir;
        MainWindow w;
        exporting::ExportController exporter(&w);
        fileio::FileController files(&w);
        files.setQuiet(true);
        test_support::showWindow(w);
        QVERIFY(files.openFile(test_support::fixture("bertviz_distilbert_headview.json")));
        test_support::settle(w.computeService());
        HeatmapGrid* grid = w.heatmapGrid();
        grid->setFocusedHead(2);
        QCOMPARE(exporter.figureTitle(grid),
                 QStringLiteral("bertviz_distilbert_headview.json · layer 1 · head 3"));
        grid->setFocusedHead(-1);
        exporting::Options o;
        o.size = QSize(900, 700);
        const int band = exporting::titleBandHeight(exporter.figureTitle(grid), grid->font());
        QVERIFY(band > 10);
        for (const auto format : {exporting::Format::Svg, exporting::Format::Pdf}) {
            o.format = format;
            const bool svg = format == exporting::Format::Svg;
            const QString plain =
                dir.filePath(svg ? QStringLiteral("p.svg") : QStringLiteral("p.pdf"));
            const QString titled =
                dir.filePath(svg ? QStringLiteral("t.svg") : QStringLiteral("t.pdf"));
            o.title.clear();
            QVERIFY(exporter.exportView(grid, plain, o).isEmpty());
            o.title = exporter.figureTitle(grid);
            QVERIFY(exporter.exportView(grid, titled, o).isEmpty());
            if (svg) {
                QCOMPARE(QSvgRenderer(plain).viewBoxF(), QRectF(0, 0, 900, 700));
                QCOMPARE(QSvgRenderer(titled).viewBoxF(), QRectF(0, 0, 900, 700 + band));
            } else {
                // 96 px = 72 pt: the page is 675 pt wide, (700 + band) · 0.75 pt high (in whole
                // points).
                const auto mediaBox = [](const QString& path) {
                    QFile f(path);
                    if (!f.open(QIODevice::ReadOnly)) return QStringList();
                    const QByteArray pdf = f.readAll();
                    const qsizetype at = pdf.indexOf("/MediaBox [");
                    const qsizetype end = pdf.indexOf(']', at);
                    return QString::fromLatin1(pdf.mid(at + 11, end - at - 11))
                        .split(QLatin1Char(' '), Qt::SkipEmptyParts);
                };
                const QStringList p = mediaBox(plain), t = mediaBox(titled);
                QCOMPARE(p.size(), 4);
                QCOMPARE(t.size(), 4);
                QVERIFY(std::abs(p[2].toDouble() - 675.0) < 0.5);
                QVERIFY(std::abs(t[2].toDouble() - 675.0) < 0.5);
                QVERIFY2(std::abs(t[3].toDouble() - (700 + band) * 0.75) < 1.0,  // whole points
                         qPrintable(t.join(QLatin1Char(' '))));
            }
        }
        w.scene()->undoStack()->setClean();
    }
};

QTEST_MAIN(ExportDialogTest)
#include "export_dialog_test.moc"
