// QtTest: the Influence tab's panels export and fit (issue 39). On the tiny GPT-2 with the
// faithfulness measured, each panel (strips, heads, faithfulness, agreement) is written as PNG,
// SVG, PDF and CSV through File ▸ Export's exporter (the CSV holds the strips' numbers); at
// 1280×800 (and at 192 dpi: app.influence_fit_test_2x) every text of every page fits its widget
// (tests/app/text_fit.hpp), no strip label is cut and the plots keep their minimum size.
// GPL-3.0-or-later.
#include <QFile>
#include <QFileInfo>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "csv_rows.hpp"
#include "export/export_controller.hpp"
#include "influence_window.hpp"
#include "model/influence_model.hpp"
#include "text_fit.hpp"
#include "views/cell_map.hpp"
#include "views/influence_strips.hpp"
#include "views/influence_view.hpp"
#include "views/qcp.hpp"

class InfluenceFitTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeInfluenceFitTest"));
        QCOMPARE(test_support::writeTinyGpt2(gpt2_.path()), QString());
    }

    /// Every panel as PNG, SVG, PDF and CSV; no clipped text, nothing squeezed.
    void panelsExportAndFit() {
        MainWindow w;
        InfluenceView* view = test_support::openInfluence(w, gpt2_.path());
        QVERIFY(view);
        QTest::mouseClick(view->measureButton(), Qt::LeftButton);
        test_support::settleAll(w.computeService());
        QVERIFY(view->model()->faithfulness());
        auto* exports = w.findChild<exporting::ExportController*>();
        QVERIFY(exports);
        QTemporaryDir out;
        for (const QString& key : {QStringLiteral("strips"), QStringLiteral("heads"),
                                   QStringLiteral("faithfulness"), QStringLiteral("agreement")}) {
            QWidget* panel = view->panel(key);
            QVERIFY2(panel, qPrintable(key));
            for (const char* ext : {"png", "svg", "pdf", "csv"}) {
                const QString path = out.filePath(key + QLatin1Char('.') + QLatin1String(ext));
                exporting::Options options;
                QVERIFY(exporting::formatFromPath(path, &options.format));
                options.size = QSize(900, 600);
                QCOMPARE(exports->exportView(panel, path, options), QString());
                QVERIFY2(QFileInfo(path).size() > 100, qPrintable(path));
            }
        }
        // The strips' numbers read back: the saliency row, position by position.
        const std::vector<double> saliency = view->strips()->rows().front().values;
        const QList<QStringList> rows =
            test_support::readCsv(out.filePath(QStringLiteral("strips.csv")));
        QVERIFY(!rows.isEmpty());
        QCOMPARE(rows.front().value(2), QStringLiteral("series"));
        std::size_t read = 0;
        for (const QStringList& row : rows)
            if (row.value(2) == QLatin1StringView("Saliency")) {
                QCOMPARE(row.value(3).toDouble(), double(read));
                QCOMPARE(row.value(4).toDouble(), saliency[read]);
                ++read;
            }
        QCOMPARE(read, saliency.size());

        // At 1280×800: every text fits on every page, and nothing is squeezed.
        QCOMPARE(w.size(), QSize(1280, 800));
        QStringList faults;
        for (int i = 0; i < view->pages()->count(); ++i) {
            view->pages()->setCurrentIndex(i);
            test_support::settleAll(w.computeService());
            faults << test_support::widgetTextFaults(view, view->pages()->tabText(i));
        }
        for (const QString& fault : faults)
            qWarning("%s", qPrintable(fault));
        QVERIFY(faults.isEmpty());
        InfluenceStrips* strips_ = view->strips();
        QVERIFY(strips_->height() >= strips_->minimumSizeHint().height());
        for (int row = 0; row < int(strips_->rows().size()); ++row)
            QVERIFY(
                strips_->labelRect(row).width() >=
                strips_->fontMetrics().horizontalAdvance(strips_->rows()[std::size_t(row)].label));
        QVERIFY(view->picker()->height() >= view->picker()->minimumHeight());
        view->pages()->setCurrentIndex(1);
        QVERIFY(view->faithPlot()->width() >= 320 && view->faithPlot()->height() >= 240);
        w.scene()->undoStack()->setClean();
    }

  private:
    QTemporaryDir gpt2_;
};

QTEST_MAIN(InfluenceFitTest)
#include "influence_fit_test.moc"
