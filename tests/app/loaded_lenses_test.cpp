// QtTest: the theory lenses that read the scene never show another scene's numbers (issue #26
// item 2, "never a stale one"). On a file of post-softmax weights the Lookup lens samples the
// loaded row (τ = 1 is the row itself, checked against the file's weights) instead of claiming
// the row is masked under the synthetic scene's bars; the Low-rank lens does not factor the
// synthetic scene's W_Q W_Kᵀ under the file's name; on a model's run the Entropy lens draws no
// flat "curve over n" of the one run it has, and says why.
#include <QDir>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "io/model_controller.hpp"
#include "lenses/lens_panel.hpp"
#include "tiny_folders.hpp"
#include "views/qcp.hpp"

class LoadedLensesTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeLoadedLensesTest"));
        QDir(fileio::FileController::autosaveFolder()).removeRecursively();
    }

    void lookupSamplesTheLoadedRow() {
        MainWindow w;
        fileio::attachDataIo(&w, {});
        test_support::showWindow(w);
        LensPanel* lens = openLens(w, "lens_lookup");  // drawn first on the synthetic scene
        openBert(w);
        // A real user's pick: query 3 ("cat", the third token: the window counts from 1) typed
        // into the lens's spin box.
        auto* query = lens->findChild<QSpinBox*>(QStringLiteral("query"));
        QVERIFY(query);
        query->setFocus();
        query->selectAll();
        QTest::keyClicks(query, QStringLiteral("3"));
        QTest::keyClick(query, Qt::Key_Enter);
        test_support::settleAll(w.computeService());
        QCOMPARE(query->value(), 2);  // kept from 0 (sessions, code)
        QCOMPARE(query->text(), QStringLiteral("3"));

        const QString readout = lens->readoutText();
        QVERIFY2(readout.contains(QStringLiteral("Query 3, head 1")), qPrintable(readout));
        const auto* titleText =
            qobject_cast<QCPTextElement*>(lens->plots().at(0)->plotLayout()->element(0, 0));
        QVERIFY(titleText);
        const QString title = titleText->text();
        QVERIFY2(title.contains(QStringLiteral("query 3 “cat”")), qPrintable(title));
        QVERIFY2(!readout.contains(QStringLiteral("sees no key")), qPrintable(readout));
        QVERIFY2(readout.contains(QStringLiteral("8 visible keys")), qPrintable(readout));
        QVERIFY2(readout.contains(QStringLiteral("s = log α")), qPrintable(readout));
        // τ = 1: the exact α bars are the file's row of head 1, query 2, key by key.
        auto* bars = qobject_cast<QCPBars*>(lens->plots().at(0)->plottable(0));
        QVERIFY(bars);
        const attn::HeadResult& head = w.result()->heads.at(0);
        QCOMPARE(bars->data()->size(), 8);
        double sum = 0;
        for (int j = 0; j < 8; ++j) {
            QVERIFY2(std::abs(bars->data()->at(j)->value - double(head.weights(2, j))) < 1e-5,
                     qPrintable(QString::number(j)));
            sum += bars->data()->at(j)->value;
        }
        QVERIFY(std::abs(sum - 1.0) < 1e-5);
        // The bars' key labels are the file's tokens, not the synthetic sentence.
        auto ticks = lens->plots().at(0)->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticks);
        QCOMPARE(ticks->ticks().value(0.0), QStringLiteral("[CLS]"));
        w.scene()->undoStack()->setClean();
    }

    void lowRankNamesNoSceneHeadOfLoadedData() {
        MainWindow w;
        fileio::attachDataIo(&w, {});
        test_support::showWindow(w);
        LensPanel* lens = openLens(w, "lens_low-rank");
        QVERIFY(lens->readoutText().contains(QStringLiteral("scene head 1")));
        openBert(w);
        const QString readout = lens->readoutText();
        QVERIFY2(!readout.contains(QStringLiteral("scene head 1")), qPrintable(readout));
        QVERIFY2(readout.contains(QStringLiteral("loaded attention has no W")),
                 qPrintable(readout));
        QVERIFY(!lens->findChild<QSpinBox*>(QStringLiteral("head"))->isEnabled());
        w.scene()->undoStack()->setClean();
    }

    void entropyDrawsNoFlatCurveOfAModel() {
        QTemporaryDir dir;
        const QString error = test_support::writeTinyGpt2(dir.path());
        QVERIFY2(error.isEmpty(), qPrintable(error));
        MainWindow w;
        fileio::attachDataIo(&w, {});
        test_support::showWindow(w);
        LensPanel* lens = openLens(w, "lens_entropy");
        QVERIFY(lens->readoutText().contains(QStringLiteral("head 1: H =")));
        auto* models = w.findChild<fileio::ModelController*>();
        models->setQuiet(true);
        QVERIFY2(models->openModel(dir.path()), qPrintable(models->lastError()));
        test_support::settleAll(w.computeService());
        const QString readout = lens->readoutText();
        QVERIFY2(!readout.contains(QStringLiteral("head 1: H =")), qPrintable(readout));
        QVERIFY2(readout.contains(QStringLiteral("Scene curves unavailable")), qPrintable(readout));
        for (QCustomPlot* plot : lens->plots())
            for (int g = 0; g < plot->graphCount(); ++g)
                QVERIFY2(!plot->graph(g)->name().startsWith(QStringLiteral("scene")),
                         qPrintable(plot->graph(g)->name()));
        w.scene()->undoStack()->setClean();
    }

  private:
    LensPanel* openLens(MainWindow& w, const char* name) {
        auto* theory = w.findChild<QTabWidget*>(QStringLiteral("theoryTabs"));
        auto* lens = w.findChild<LensPanel*>(QLatin1String(name));
        if (!theory || !lens) qFatal("no lens %s", name);
        w.tabs()->setCurrentWidget(theory);
        theory->setCurrentWidget(lens);
        test_support::settleAll(w.computeService());
        return lens;
    }

    void openBert(MainWindow& w) {
        auto* files = w.findChild<fileio::FileController*>();
        files->setQuiet(true);
        QVERIFY(files->openFile(test_support::fixture("bertviz_distilbert_headview.json")));
        test_support::settleAll(w.computeService());
        QVERIFY(w.scene()->spec().is_loaded());
    }
};

QTEST_MAIN(LoadedLensesTest)
#include "loaded_lenses_test.moc"
