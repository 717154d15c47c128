// QtTest: every export format writes a valid file — PNG at size × DPI/96 pixels with the DPI
// recorded, SVG that QtSvg parses, a one-page PDF of the requested size — and the numbers
// behind a view come out as .npy and .csv with the weights core computed.
#include <QFile>
#include <QImage>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/io/load.hpp"
#include "attn/io/numpy/npy.hpp"
#include "export/export_dialog.hpp"
#include "export/figure_export.hpp"
#include "export/layers_export.hpp"
#include "export/numbers_export.hpp"
#include "model/scene.hpp"
#include "views/heatmap_grid.hpp"
#include "views/model_grid.hpp"

namespace {

int pdfPageCount(const QByteArray& pdf) {
    // Qt's writer emits one "/Type /Page" object per page (and one "/Type /Pages" tree).
    return int(pdf.count("/Type /Page\n")) + int(pdf.count("/Type /Page\r")) +
           int(pdf.count("/Type /Page ")) + int(pdf.count("/Type /Page/")) +
           int(pdf.count("/Type /Page>"));
}

}  // namespace

class ExportFigureTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        result_ = std::make_shared<const attn::SceneResult>(attn::compute_scene(attn::SceneSpec{}));
        grid_ = std::make_unique<HeatmapGrid>();
        grid_->resize(900, 600);
        grid_->setResult(result_);
    }

    void pngHasSizeTimesDpi() {
        exporting::Options o;
        o.format = exporting::Format::Png;
        o.size = QSize(640, 480);
        o.dpi = 192;
        const QString path = dir_.filePath(QStringLiteral("a.png"));
        QCOMPARE(exporting::exportFigure(grid_.get(), path, o), QString());
        QImage img(path);
        QCOMPARE(img.size(), QSize(1280, 960));
        QCOMPARE(qRound(img.dotsPerMeterX() * 0.0254), 192);
        // Not blank: a heatmap has many colours.
        QSet<QRgb> colours;
        for (int y = 0; y < img.height(); y += 7)
            for (int x = 0; x < img.width(); x += 7)
                colours.insert(img.pixel(x, y));
        QVERIFY(colours.size() > 50);
        // The on-screen size is restored after the export.
        QCOMPARE(grid_->size(), QSize(900, 600));
    }

    void svgParses() {
        exporting::Options o;
        o.format = exporting::Format::Svg;
        o.size = QSize(800, 500);
        const QString path = dir_.filePath(QStringLiteral("b.svg"));
        QCOMPARE(exporting::exportFigure(grid_.get(), path, o), QString());
        QSvgRenderer svg(path);
        QVERIFY(svg.isValid());
        QCOMPARE(svg.viewBoxF(), QRectF(0, 0, 800, 500));  // size itself is in mm
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY(text.contains("<image"));  // heatmaps embedded as images
        QVERIFY(text.contains("<text"));   // labels as vector text
    }

    void pdfHasOnePage() {
        exporting::Options o;
        o.format = exporting::Format::Pdf;
        o.size = QSize(960, 720);
        const QString path = dir_.filePath(QStringLiteral("c.pdf"));
        QCOMPARE(exporting::exportFigure(grid_.get(), path, o), QString());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray pdf = f.readAll();
        QVERIFY(pdf.startsWith("%PDF-"));
        QCOMPARE(pdfPageCount(pdf), 1);
        QVERIFY(pdf.contains("/MediaBox [0 0 720.0"));  // 960×720 px = 720×540 pt
        QVERIFY(pdf.contains(" 540.0"));
    }

    void modelViewExports() {
        Scene scene;
        ModelGrid model(&scene);
        model.resize(700, 500);
        model.refreshNow();
        exporting::Options o;
        o.size = QSize(700, 500);
        const QString path = dir_.filePath(QStringLiteral("m.png"));
        QCOMPARE(exporting::exportFigure(&model, path, o), QString());
        QCOMPARE(QImage(path).size(), QSize(700, 500));
    }

    void badTargetsFailWithAMessage() {
        exporting::Options o;
        QVERIFY(exporting::exportFigure(grid_.get(), QStringLiteral("/nonexistent/dir/x.png"), o)
                    .contains(QStringLiteral("x.png")));
        o.size = QSize(4, 4);
        QVERIFY(!exporting::exportFigure(grid_.get(), dir_.filePath(QStringLiteral("y.png")), o)
                     .isEmpty());
    }

    void numbersAsNpyAndCsv() {
        const exporting::Numbers n = exporting::numbersOf(*result_);
        const auto heads = result_->heads.size(), nq = result_->q_tokens.size(),
                   nk = result_->k_tokens.size();
        const QString npy = dir_.filePath(QStringLiteral("w.npy"));
        QCOMPARE(exporting::writeNumbers(n, npy), QString());
        const attn::io::NpyArray a = attn::io::read_npy(QFile::encodeName(npy).toStdString());
        QCOMPARE(a.shape, (std::vector<std::uint64_t>{heads, nq, nk}));
        for (std::size_t h = 0; h < heads; ++h)
            for (std::size_t i = 0; i < nq; ++i)
                for (std::size_t j = 0; j < nk; ++j)
                    QCOMPARE(a.values[(h * nq + i) * nk + j],
                             result_->heads[h].weights(attn::Index(i), attn::Index(j)));
        const QString csv = dir_.filePath(QStringLiteral("w.csv"));
        QCOMPARE(exporting::writeNumbers(n, csv), QString());
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), qsizetype(1 + heads * nq * nk));
        QCOMPARE(lines.front(),
                 QByteArray("layer_from_0,head_from_0,query,query_token,key,key_token,weight"));
        QVERIFY(lines.at(1).startsWith("0,0,0,The,0,The,"));
    }

    // In the window, a view laid out by the tab widget exports at another size and gets its
    // place back afterwards.
    void viewInsideTheWindowExportsAtAnySize() {
        MainWindow w;
        w.resize(1300, 850);
        w.setAttribute(Qt::WA_DontShowOnScreen);
        w.show();
        test_support::settle(w.computeService());
        QWidget* view = w.heatmapGrid();
        const QSize before = view->size();
        exporting::Options o;
        o.size = QSize(500, 400);
        const QString path = dir_.filePath(QStringLiteral("window.png"));
        QCOMPARE(exporting::exportFigure(view, path, o), QString());
        QCOMPARE(QImage(path).size(), QSize(500, 400));
        QCOMPARE(view->size(), before);
        o.format = exporting::Format::Pdf;
        QCOMPARE(exporting::exportFigure(view, dir_.filePath(QStringLiteral("window.pdf")), o),
                 QString());
    }

    void dialogFollowsTheExtension() {
        ExportDialog dialog(QStringLiteral("Heads"), QSize(900, 600),
                            dir_.filePath(QStringLiteral("heads.svg")));
        QCOMPARE(dialog.options().format, exporting::Format::Svg);
        QCOMPARE(dialog.options().size, QSize(900, 600));
        const QString shots = qEnvironmentVariable("ATTN_IO_SHOTS");
        if (!shots.isEmpty()) {
            dialog.setAttribute(Qt::WA_DontShowOnScreen);
            dialog.show();
            dialog.grab().save(shots + QStringLiteral("/export-dialog.png"));
        }
    }

    void allLayersNumbers() {
        attn::SceneSpec spec;
        spec.data = std::make_shared<const attn::AttentionData>(attn::io::load_attention(
            test_support::fixture("bertviz_distilbert_headview.json").toStdString()));
        // Streamed layer by layer; every layer's weights equal the scene computed at that layer.
        const QString npy = dir_.filePath(QStringLiteral("layers.npy"));
        const QString csv = dir_.filePath(QStringLiteral("layers.csv"));
        QCOMPARE(exporting::writeAllLayers(spec, npy), QString());
        QCOMPARE(exporting::writeAllLayers(spec, csv), QString());
        const attn::io::NpyArray a = attn::io::read_npy(QFile::encodeName(npy).toStdString());
        QCOMPARE(a.shape, (std::vector<std::uint64_t>{6, 12, 8, 8}));
        attn::SceneSpec layer3 = spec;
        layer3.layer = 3;
        const attn::SceneResult r3 = attn::compute_scene(layer3);
        for (int h : {0, 7, 11})
            for (int i = 0; i < 8; ++i)
                for (int j = 0; j < 8; ++j)
                    QCOMPARE(a.values[std::size_t(((3 * 12 + h) * 8 + i) * 8 + j)],
                             r3.heads[std::size_t(h)].weights(i, j));
        QFile text(csv);
        QVERIFY(text.open(QIODevice::ReadOnly));
        QCOMPARE(text.readLine(), QByteArray(exporting::kWeightsCsvHeader));
        int rows = 0;
        while (!text.readLine().isEmpty())
            ++rows;
        QCOMPARE(rows, 6 * 12 * 8 * 8);
        // A known result stands in for its own layer: the stream does not compute it again.
        attn::SceneResult fake = r3;
        fake.heads[0].weights.setConstant(0.25f);
        QCOMPARE(exporting::writeAllLayers(layer3, npy, nullptr, &fake), QString());
        const attn::io::NpyArray b = attn::io::read_npy(QFile::encodeName(npy).toStdString());
        QCOMPARE(b.values[std::size_t((3 * 12) * 64)], 0.25f);
        QCOMPARE(b.values[std::size_t((2 * 12) * 64)], a.values[std::size_t((2 * 12) * 64)]);
        // Unwritable: a message naming the path, and nothing left behind.
        const QString bad = dir_.filePath(QStringLiteral("missing/layers.npy"));
        QVERIFY(exporting::writeAllLayers(spec, bad).contains(bad));
    }

  private:
    QTemporaryDir dir_;
    SceneResultPtr result_;
    std::unique_ptr<HeatmapGrid> grid_;
};

QTEST_MAIN(ExportFigureTest)
#include "export_figure_test.moc"
