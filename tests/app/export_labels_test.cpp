// QtTest: an exported CSV's x_label and y_label are plain labels. A lens's axis elides a long
// token ("internat…") and thins its labels out on a long sentence; File ▸ Export's CSV names
// every position's token in full (the Lookup lens's keys, the Low rank lens's rows and columns).
// The Interventions pages' plain labels are checked in intervention_exports_test.cpp.
// GPL-3.0-or-later.
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>
#include <utility>

#include "app_test_support.hpp"
#include "csv_rows.hpp"
#include "export/export_controller.hpp"
#include "export/export_options.hpp"
#include "lenses/lens_panel.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "views/qcp.hpp"

namespace {

exporting::Options csvFormat() {
    exporting::Options o;
    o.format = exporting::Format::Csv;
    return o;
}

}  // namespace

class ExportLabelsTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    /// A CSV's labels are plain: the axis draws a long token elided ("internat…"), the file
    /// names it in full, at every position (Lookup: the keys; Low rank: rows and columns).
    void lensLabelsAreTheTokensInFull() {
        MainWindow w;
        exporting::ExportController exporter(&w);
        test_support::showWindow(w);
        attn::SceneSpec spec = w.scene()->spec();
        spec.text = "The internationalization agreement was signed";
        w.scene()->setSpec(spec, QStringLiteral("long words"));
        test_support::settle(w.computeService());
        const std::vector<std::string>& keys = w.result()->k_tokens;
        QCOMPARE(keys.size(), std::size_t(5));
        auto* theory = qobject_cast<QTabWidget*>(w.tabs()->widget(2));
        QVERIFY(theory);
        w.tabs()->setCurrentWidget(theory);
        // Each lens with the plot whose axes are the tokens: Lookup's α bars, Low rank's full
        // scores.
        for (const auto& [name, plot] : {std::pair{"lookup", 0}, std::pair{"low-rank", 2}}) {
            auto* lens =
                theory->findChild<LensPanel*>(QStringLiteral("lens_") + QString::fromLatin1(name));
            QVERIFY(lens);
            theory->setCurrentWidget(lens);
            QCoreApplication::processEvents();
            Scheduler::instance().waitForIdle();
            const QString csv = dir_.filePath(QString::fromLatin1(name) + QStringLiteral("-l.csv"));
            QCOMPARE(exporter.exportView(w.tabs()->currentWidget(), csv, csvFormat()), QString());
            // The figure itself elides the long token: the test reads what a user could not.
            QCustomPlot* tokenPlot = lens->plots().at(plot);
            const auto ticks = tokenPlot->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
            QVERIFY(ticks);
            QVERIFY2(ticks->ticks().value(1.0).endsWith(QStringLiteral("…")),
                     qPrintable(ticks->ticks().value(1.0)));
            const QString title =
                qobject_cast<QCPTextElement*>(tokenPlot->plotLayout()->element(0, 0))->text();
            int labelled = 0;
            for (const QStringList& f : test_support::readCsv(csv).mid(1)) {
                if (f.value(1) != title) continue;  // that plot's rows
                const auto x = std::size_t(f.value(3).toDouble());
                QVERIFY(x < keys.size());
                QCOMPARE(f.value(6), QString::fromStdString(keys[x]));
                if (!f.value(5).isEmpty()) {  // a heatmap cell: its row is a token too
                    const auto y = std::size_t(f.value(4).toDouble());
                    QCOMPARE(f.value(7), QString::fromStdString(keys[y]));
                }
                ++labelled;
            }
            QVERIFY2(labelled >= 5, name);
        }
        w.scene()->undoStack()->setClean();
    }

  private:
    QTemporaryDir dir_;
};

QTEST_MAIN(ExportLabelsTest)
#include "export_labels_test.moc"
