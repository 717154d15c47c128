// QtTest: a Mixtral folder in the window, driven with real events (issue 38). A tiny random
// Mixtral (tests/core/decoder_tiny.py: 2 layers, 4 experts, top 2, a tokenizer.json of whole
// words) opens from its folder, a sentence is typed, and the Model dock's router table shows
// each position's experts and weights in the shown layer as core's run routes them; typing
// layer 2 into the dock's layer box shows layer 2's routing. GPL-3.0-or-later.
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/models/run.hpp"
#include "io/model_controller.hpp"
#include "io/model_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "tiny_folders.hpp"

namespace {

/// The router table against RUN's routing in LAYER: "" when every cell says "expert · weight".
QString compareRouting(const QTableWidget* table, const attn::model::Run& run, int layer) {
    const auto& l = run.layers[std::size_t(layer)];
    if (table->rowCount() != int(l.router_experts.rows()) ||
        table->columnCount() != int(l.router_experts.cols()) + 1)
        return QStringLiteral("%1 × %2 cells").arg(table->rowCount()).arg(table->columnCount());
    for (int i = 0; i < table->rowCount(); ++i)
        for (int j = 0; j < int(l.router_experts.cols()); ++j) {
            const QString want = QStringLiteral("%1 · %2")
                                     .arg(l.router_experts(i, j))
                                     .arg(double(l.router_weights(i, j)), 0, 'f', 2);
            const QString got = table->item(i, j + 1) ? table->item(i, j + 1)->text() : QString();
            if (got != want) return QStringLiteral("row %1: %2, core %3").arg(i).arg(got, want);
        }
    return {};
}

}  // namespace

class MixtralRouterTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeMixtralRouterTest"));
        QCOMPARE(test_support::writeTinyFolder(ATTN_CORE_TESTS_DIR "/decoder_tiny.py", dir_.path(),
                                               {QStringLiteral("11"), QStringLiteral("mixtral")}),
                 QString());
    }

    void routerTableFollowsTheLayer() {
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        QVERIFY2(models->openModel(dir_.path()), qPrintable(models->lastError()));
        QVERIFY(models->dock()->aboutText().contains(QStringLiteral("Mixtral")));
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the cat sat on the mat")),
                 QString());
        test_support::settle(w.computeService());
        const auto folder = w.scene()->spec().model;
        const std::vector<std::int32_t> ids = folder->tokenizer->encode("the cat sat on the mat");
        const attn::model::Run run = attn::model::run(*folder->model, ids);
        QTableWidget* table = models->dock()->routerTable();
        QTRY_VERIFY(!table->isHidden());
        QCOMPARE(compareRouting(table, run, 0), QString());
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("the"));

        // Layer 2, typed into the dock's layer box (from 1): its own routing.
        QSpinBox* layerBox = models->dock()->layerBox();
        layerBox->setFocus();
        layerBox->selectAll();
        QTest::keyClicks(layerBox, QStringLiteral("2"));
        QTest::keyClick(layerBox, Qt::Key_Return);
        QTRY_COMPARE(w.scene()->spec().layer, attn::Index(1));
        test_support::settle(w.computeService());
        QTRY_COMPARE(compareRouting(table, run, 1), QString());
        QVERIFY(!table->isHidden());
        w.scene()->undoStack()->setClean();  // no unsaved-changes prompt on close
    }

  private:
    QTemporaryDir dir_;
};

QTEST_MAIN(MixtralRouterTest)
#include "mixtral_router_test.moc"
