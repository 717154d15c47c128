// QtTest: File ▸ Export numbers writes the numbers the active view plots. Every lens (inside the
// Theory tab, as the menu sees it) and the playground export their own series and matrices, as
// .csv and .npy, equal to what their plots hold, and never the scene's attention weights.
#include <QApplication>
#include <QFile>
#include <QLineEdit>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <cmath>
#include <vector>

#include "app_test_support.hpp"
#include "attn/io/load.hpp"
#include "attn/io/numpy/npy.hpp"
#include "attn/util/error.hpp"
#include "export/export_controller.hpp"
#include "export/export_dialog.hpp"
#include "export/layers_export.hpp"
#include "lenses/lens_panel.hpp"
#include "lenses/lens_registry.hpp"
#include "model/playground_model.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "playground/playground_widget.hpp"
#include "views/model_grid.hpp"
#include "views/qcp.hpp"

namespace {

/// One number the view plots: its series, position and (for a matrix cell) value.
struct Row {
    int series = 0;
    QString plot, name;
    double x = 0, y = 0, z = std::nan("");
};

/// What the lens's plots hold, read straight from QCustomPlot (in layout and drawing order).
std::vector<Row> plotted(const LensPanel& lens) {
    std::vector<Row> rows;
    int series = 0;
    for (QCustomPlot* plot : lens.plots()) {
        const auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
        for (int i = 0; i < plot->plottableCount(); ++i) {
            QCPAbstractPlottable* p = plot->plottable(i);
            const std::size_t before = rows.size();
            const auto add = [&](double x, double y, double z) {
                rows.push_back({series, title->text(), p->name(), x, y, z});
            };
            if (auto* g = qobject_cast<QCPGraph*>(p)) {
                for (const QCPGraphData& d : *g->data())
                    add(d.key, d.value, std::nan(""));
            } else if (auto* b = qobject_cast<QCPBars*>(p)) {
                for (const QCPBarsData& d : *b->data())
                    add(d.key, d.value, std::nan(""));
            } else if (auto* m = qobject_cast<QCPColorMap*>(p)) {
                QCPColorMapData* d = m->data();
                for (int r = 0; r < d->valueSize(); ++r)
                    for (int c = 0; c < d->keySize(); ++c) {
                        double x = 0, y = 0;
                        d->cellToCoord(c, r, &x, &y);
                        add(x, y, d->cell(c, r));
                        if (p->name().isEmpty())
                            rows.back().name = m->colorScale()->axis()->label();
                    }
            }
            if (rows.size() > before) ++series;
        }
    }
    return rows;
}

/// Splits one CSV line (RFC 4180 quoting; no line breaks inside fields here).
QStringList csvFields(const QString& line) {
    QStringList out;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < line.size() && line[i + 1] == QLatin1Char('"'))
                field += QLatin1Char('"'), ++i;
            else if (c == QLatin1Char('"'))
                quoted = false;
            else
                field += c;
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            out << field;
            field.clear();
        } else {
            field += c;
        }
    }
    out << field;
    return out;
}

QStringList readLines(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

bool sameNumber(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

/// Compares the exported .csv with rows; empty on success.
QString compareCsv(const QString& path, const std::vector<Row>& rows) {
    const QStringList lines = readLines(path);
    if (lines.value(0) != QLatin1StringView("series_index,plot,series,x,y,z,x_label,y_label"))
        return QStringLiteral("header: ") + lines.value(0);
    if (lines.size() - 1 != qsizetype(rows.size()))
        return QStringLiteral("%1 rows, the plots hold %2").arg(lines.size() - 1).arg(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const QStringList f = csvFields(lines[qsizetype(i) + 1]);
        const Row& r = rows[i];
        const double z = f.value(5).isEmpty() ? std::nan("") : f.value(5).toDouble();
        if (f.size() != 8 || f[0].toInt() != r.series || f[1] != r.plot || f[2] != r.name ||
            !sameNumber(f[3].toDouble(), r.x) || !sameNumber(f[4].toDouble(), r.y) ||
            !sameNumber(z, r.z))
            return QStringLiteral("row %1: %2 (plot: %3 %4 %5 %6 %7)")
                .arg(i)
                .arg(lines[qsizetype(i) + 1], r.name)
                .arg(r.x)
                .arg(r.y)
                .arg(r.z)
                .arg(r.series);
    }
    return {};
}

/// Compares the exported .npy ([N, 4] float32: series, x, y, z) with rows; empty on success.
QString compareNpy(const QString& path, const std::vector<Row>& rows) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return QStringLiteral("cannot read ") + path;
    const QByteArray bytes = f.readAll();
    const attn::io::NpyView view(
        std::span(reinterpret_cast<const std::byte*>(bytes.data()), std::size_t(bytes.size())),
        "export.npy");
    const std::vector<std::uint64_t> shape{rows.size(), 4};
    if (view.header().shape != shape || view.header().type != attn::io::NpyType::Float32)
        return QStringLiteral("shape or dtype: %1")
            .arg(QString::fromStdString(view.header().dtype_name()));
    const std::vector<float> v = view.to_floats(false);  // NaN is "no z"
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        if (!sameNumber(v[4 * i], float(r.series)) || !sameNumber(v[4 * i + 1], float(r.x)) ||
            !sameNumber(v[4 * i + 2], float(r.y)) || !sameNumber(v[4 * i + 3], float(r.z)))
            return QStringLiteral("row %1 of %2: %3 %4 %5 %6")
                .arg(i)
                .arg(r.name)
                .arg(v[4 * i])
                .arg(v[4 * i + 1])
                .arg(v[4 * i + 2])
                .arg(v[4 * i + 3]);
    }
    return {};
}

exporting::Options numbersFormat(exporting::Format format) {
    exporting::Options o;
    o.format = format;
    return o;
}

}  // namespace

class ExportNumbersTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void everyLensExportsWhatItPlots() {
        MainWindow w;
        exporting::ExportController exporter(&w);
        test_support::showWindow(w);
        auto* theory = qobject_cast<QTabWidget*>(w.tabs()->widget(2));
        QVERIFY(theory);
        w.tabs()->setCurrentWidget(theory);
        const QStringList names = lensNames();
        QCOMPARE(theory->count(), names.size());
        for (int i = 0; i < names.size(); ++i) {
            theory->setCurrentIndex(i);
            auto* lens = qobject_cast<LensPanel*>(theory->currentWidget());
            QVERIFY(lens);
            QCOMPARE(lens->lensName(), names[i]);
            QCoreApplication::processEvents();
            const QString csv = dir_.filePath(names[i] + QStringLiteral(".csv"));
            const QString npy = dir_.filePath(names[i] + QStringLiteral(".npy"));
            // Through the menu's path: the window's current tab, the Theory tab widget.
            QCOMPARE(exporter.exportView(w.tabs()->currentWidget(), csv,
                                         numbersFormat(exporting::Format::Csv)),
                     QString());
            QCOMPARE(exporter.exportView(w.tabs()->currentWidget(), npy,
                                         numbersFormat(exporting::Format::Npy)),
                     QString());
            const std::vector<Row> rows = plotted(*lens);
            QVERIFY2(rows.size() > 1, qPrintable(names[i]));
            const QString csvError = compareCsv(csv, rows);
            QVERIFY2(csvError.isEmpty(), qPrintable(names[i] + QStringLiteral(": ") + csvError));
            const QString npyError = compareNpy(npy, rows);
            QVERIFY2(npyError.isEmpty(), qPrintable(names[i] + QStringLiteral(": ") + npyError));
        }
    }

    void hiddenLensIsBroughtUpToDate() {
        // Changed while another tab shows: the export recomputes first, so the file holds the
        // new scene's curves (one per head), exactly as the lens then plots them.
        MainWindow w;
        exporting::ExportController exporter(&w);
        test_support::showWindow(w);
        auto* theory = qobject_cast<QTabWidget*>(w.tabs()->widget(2));
        auto* entropy = theory->findChild<LensPanel*>(QStringLiteral("lens_entropy"));
        QVERIFY(entropy);
        attn::SceneSpec spec = w.scene()->spec();
        spec.heads = 2;
        w.scene()->setSpec(spec, QStringLiteral("two heads"));
        QCoreApplication::processEvents();
        const QString csv = dir_.filePath(QStringLiteral("entropy-2.csv"));
        QCOMPARE(exporter.exportView(entropy, csv, numbersFormat(exporting::Format::Csv)),
                 QString());
        const std::vector<Row> rows = plotted(*entropy);
        QCOMPARE(compareCsv(csv, rows), QString());
        QStringList heads;
        for (const Row& r : rows)
            if (r.name.startsWith(QLatin1StringView("scene head")) && !heads.contains(r.name))
                heads << r.name;
        QCOMPARE(heads.size(), 2);
    }

    void playgroundExportsItsOwnNumbers() {
        MainWindow w;
        exporting::ExportController exporter(&w);
        test_support::showWindow(w);
        auto* playground = qobject_cast<PlaygroundWidget*>(w.tabs()->widget(1));
        QVERIFY(playground);
        w.tabs()->setCurrentWidget(playground);
        const attn::PlaygroundState& st = playground->model()->state();
        const attn::Matrix& alpha = playground->model()->result().head.weights;
        const QString csv = dir_.filePath(QStringLiteral("playground.csv"));
        const QString npy = dir_.filePath(QStringLiteral("playground.npy"));
        QCOMPARE(exporter.exportView(playground, csv, numbersFormat(exporting::Format::Csv)),
                 QString());
        QCOMPARE(exporter.exportView(playground, npy, numbersFormat(exporting::Format::Npy)),
                 QString());
        std::vector<Row> rows;
        int series = 0;
        const auto points = [&](const QString& plot, const QString& name,
                                const std::vector<Eigen::Vector2d>& p) {
            for (const Eigen::Vector2d& v : p)
                rows.push_back({series, plot, name, v.x(), v.y(), std::nan("")});
            ++series;
        };
        points(QStringLiteral("query/key plane"), QStringLiteral("queries"), st.queries);
        points(QStringLiteral("query/key plane"), QStringLiteral("keys"), st.keys);
        points(QStringLiteral("value plane"), QStringLiteral("values"), st.values);
        points(QStringLiteral("value plane"), QStringLiteral("outputs"),
               playground->model()->result().outputs);
        for (attn::Index i = 0; i < alpha.rows(); ++i)
            for (attn::Index j = 0; j < alpha.cols(); ++j)
                rows.push_back({series, QStringLiteral("weights"),
                                QStringLiteral("weights α (query rows, key columns)"), double(j),
                                double(i), double(alpha(i, j))});
        QCOMPARE(compareCsv(csv, rows), QString());
        QCOMPARE(compareNpy(npy, rows), QString());
        // Token labels name the points: the first key is k1.
        QVERIFY(
            readLines(csv).value(1 + int(st.queries.size())).endsWith(QLatin1StringView(",k1,")));
    }

    // The Model tab's numbers: every layer, streamed as the scheduler's "export numbers" job;
    // a cancelled stream leaves no file.
    void modelTabExportsEveryLayerAsAJob() {
        MainWindow w;
        exporting::ExportController exporter(&w);
        test_support::showWindow(w);
        attn::SceneSpec spec;
        spec.data = std::make_shared<const attn::AttentionData>(attn::io::load_attention(
            test_support::fixture("bertviz_distilbert_headview.json").toStdString()));
        w.scene()->setSpec(spec, QStringLiteral("Load"));
        ModelGrid model(w.scene(), w.computeService());  // as attachDataIo puts it in its tab
        QStringList jobs;
        QObject listening;  // the connection ends with this test, before `jobs` goes
        connect(&Scheduler::instance(), &Scheduler::jobFinished, &listening,
                [&](const QString& name) { jobs << name; });
        const QString npy = dir_.filePath(QStringLiteral("model.npy"));
        QCOMPARE(exporter.exportView(&model, npy, numbersFormat(exporting::Format::Npy)),
                 QString());
        QVERIFY(jobs.contains(QStringLiteral("export numbers")));
        const attn::io::NpyArray a = attn::io::read_npy(QFile::encodeName(npy).toStdString());
        QCOMPARE(a.shape, (std::vector<std::uint64_t>{6, 12, 8, 8}));
        spec.layer = 5;
        const attn::SceneResult last = attn::compute_scene(spec);
        QCOMPARE(a.values[std::size_t(((5 * 12 + 11) * 8 + 7) * 8 + 6)],
                 last.heads[11].weights(7, 6));
        struct CancelAfterFirstLayer : attn::Progress {
            double seen = 0;
            void update(double f) override { seen = std::max(seen, f); }
            bool cancelled() const override { return seen > 0; }
        } cancel;
        const QString gone = dir_.filePath(QStringLiteral("cancelled.npy"));
        QVERIFY_THROWS_EXCEPTION(attn::Cancelled, exporting::writeAllLayers(spec, gone, &cancel));
        QVERIFY(!QFile::exists(gone));
    }

    void headsViewStillExportsWeights() {
        MainWindow w;
        exporting::ExportController exporter(&w);
        test_support::showWindow(w);
        const QString csv = dir_.filePath(QStringLiteral("heads.csv"));
        QCOMPARE(exporter.exportView(w.heatmapGrid(), csv, numbersFormat(exporting::Format::Csv)),
                 QString());
        QCOMPARE(readLines(csv).value(0),
                 QStringLiteral("layer_from_0,head_from_0,query,query_token,key,key_token,weight"));
    }

    void focusedHeadExportsThatHeadOnly() {
        MainWindow w;
        exporting::ExportController exporter(&w);
        test_support::showWindow(w);
        const int head = 2;
        w.heatmapGrid()->setFocusedHead(head);
        const attn::Matrix& expected = w.result()->heads[std::size_t(head)].weights;
        const QString csv = dir_.filePath(QStringLiteral("head.csv"));
        const QString npy = dir_.filePath(QStringLiteral("head.npy"));
        QCOMPARE(exporter.exportView(w.heatmapGrid(), csv, numbersFormat(exporting::Format::Csv)),
                 QString());
        QCOMPARE(exporter.exportView(w.heatmapGrid(), npy, numbersFormat(exporting::Format::Npy)),
                 QString());
        const QStringList lines = readLines(csv);
        QCOMPARE(lines.size() - 1, qsizetype(expected.size()));
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QStringList f = csvFields(lines[i]);
            QCOMPARE(f.value(1).toInt(), head);
            QCOMPARE(f.value(6).toFloat(), expected(f.value(2).toInt(), f.value(4).toInt()));
        }
        const attn::io::NpyArray a = attn::io::read_npy(QFile::encodeName(npy).toStdString());
        QCOMPARE(a.shape, (std::vector<std::uint64_t>{std::uint64_t(expected.rows()),
                                                      std::uint64_t(expected.cols())}));
        QVERIFY(std::equal(a.values.begin(), a.values.end(), expected.data()));
    }

    void menuExportWritesTheLensOnShow() {
        // File ▸ Export as the user runs it: the dialog proposes a file named after the lens,
        // and a .csv path typed into it gets the lens's numbers.
        MainWindow w;
        exporting::ExportController exporter(&w);
        test_support::showWindow(w);
        auto* theory = qobject_cast<QTabWidget*>(w.tabs()->widget(2));
        w.tabs()->setCurrentWidget(theory);
        theory->setCurrentIndex(int(lensNames().indexOf(QStringLiteral("rank-collapse"))));
        auto* lens = qobject_cast<LensPanel*>(theory->currentWidget());
        QVERIFY(lens);
        const QString target = dir_.filePath(QStringLiteral("from-menu.csv"));
        QString proposed;
        QTimer answer;
        answer.setInterval(20);
        connect(&answer, &QTimer::timeout, this, [&] {
            auto* dialog = qobject_cast<ExportDialog*>(QApplication::activeModalWidget());
            if (!dialog) return;
            proposed = dialog->path();
            dialog->findChild<QLineEdit*>(QStringLiteral("exportPath"))->setText(target);
            dialog->accept();
        });
        answer.start();
        w.exportAction()->trigger();
        answer.stop();
        QCOMPARE(QFileInfo(proposed).fileName(), QStringLiteral("theory-rank-collapse.png"));
        QCOMPARE(compareCsv(target, plotted(*lens)), QString());
    }

  private:
    QTemporaryDir dir_;
};

QTEST_MAIN(ExportNumbersTest)
#include "export_numbers_test.moc"
