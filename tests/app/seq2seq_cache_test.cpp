// QtTest: encoder–decoders in the Hugging Face cache. A tiny random Marian and a tiny random T5
// (tests/cli/seq2seq_tiny.py) kept as snapshots of a hub cache are listed in Model ▸ beside the
// decoder-only families ("tiny/marian — Marian · …"), and each entry opens its folder: the
// Translation dock shows the model's run, the window's title names the repository.
// GPL-3.0-or-later.
#include <QDir>
#include <QMenu>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>
#include <algorithm>

#include "app_test_support.hpp"
#include "io/model_controller.hpp"
#include "io/seq2seq_dock.hpp"
#include "main_window.hpp"
#include "marian_folder.hpp"
#include "model/scene.hpp"
#include "tiny_folders.hpp"

namespace {

/// HUB/hub/models--tiny--NAME/snapshots/0123abcd, made.
QString snapshot(const QTemporaryDir& hub, const QString& name) {
    const QString dir =
        hub.path() + QStringLiteral("/hub/models--tiny--%1/snapshots/0123abcd").arg(name);
    return QDir().mkpath(dir) ? dir : QString();
}

/// The entry of MODELS's menu starting PREFIX, or nullptr with *LISTED what it holds.
QAction* entry(fileio::ModelController* models, const QString& prefix, QString* listed) {
    const QList<QAction*> actions = models->menu()->actions();
    const auto at = std::find_if(actions.begin(), actions.end(),
                                 [&](const QAction* a) { return a->text().startsWith(prefix); });
    if (at != actions.end()) return *at;
    listed->clear();
    for (const QAction* a : actions)
        *listed += a->text() + QLatin1Char('|');
    return nullptr;
}

}  // namespace

class Seq2SeqCacheTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeSeq2SeqCacheTest"));
    }

    void listedAndOpened() {
        QTemporaryDir hub;
        const QString marian = snapshot(hub, QStringLiteral("marian")),
                      t5 = snapshot(hub, QStringLiteral("t5"));
        QVERIFY(!marian.isEmpty() && !t5.isEmpty());
        QCOMPARE(test_support::writeMarianFolder(marian), QString());
        QCOMPARE(test_support::writeT5Folder(t5), QString());
        qputenv("HF_HOME", hub.path().toLocal8Bit());
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        QSignalSpy scanned(models, &fileio::ModelController::cacheScanned);
        Q_EMIT models->menu()->aboutToShow();
        QVERIFY(scanned.wait());
        QString listed;
        QAction* marianEntry = entry(models, QStringLiteral("tiny/marian — Marian · "), &listed);
        QVERIFY2(marianEntry, qPrintable(listed));
        QAction* t5Entry = entry(models, QStringLiteral("tiny/t5 — T5 · "), &listed);
        QVERIFY2(t5Entry, qPrintable(listed));
        QCOMPARE(marianEntry->toolTip(), marian);

        // Each opens: the Translation dock runs it.
        fileio::Seq2SeqDock* dock = models->seq2seqDock();
        for (auto [action, dir] : {std::pair{marianEntry, marian}, std::pair{t5Entry, t5}}) {
            action->trigger();
            QVERIFY2(models->lastError().isEmpty(), qPrintable(models->lastError()));
            test_support::settleAll(w.computeService());
            QVERIFY(dock->folder());
            QCOMPARE(QString::fromStdString(dock->folder()->dir), dir);
            QVERIFY(dock->isVisible());
            // Named by its repository, not by its snapshot's hash.
            QVERIFY2(
                w.windowTitle().startsWith(action == marianEntry ? QStringLiteral("tiny/marian")
                                                                 : QStringLiteral("tiny/t5")),
                qPrintable(w.windowTitle()));
            w.scene()->undoStack()->setClean();  // the next opens without asking to save
        }
    }
};

QTEST_MAIN(Seq2SeqCacheTest)
#include "seq2seq_cache_test.moc"
