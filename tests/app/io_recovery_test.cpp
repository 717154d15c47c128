// QtTest: crash recovery. A session that ends without closing its window leaves its autosave
// behind; the next start (attachDataIo, as `attnscope` runs it) asks once whether to restore it.
// Yes restores the scene exactly, unsaved and unnamed; No keeps the default scene. Either way
// the autosave file is gone. The question is answered through an injected prompt, so no modal
// dialog blocks the test.
#include <QFile>
#include <QSettings>
#include <QUndoStack>
#include <QtTest>
#include <memory>

#include "app_test_support.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "settings_keys.hpp"
#include "views/heatmap_grid.hpp"

namespace {

QString autosave() {
    return fileio::FileController::autosavePath();
}

/// What a crashed session leaves: an edited scene autosaved by the timer's autosave(), then
/// the window destroyed without a close event (so nothing removes the file).
struct Crashed {
    attn::SceneSpec spec;
    Selection selection;
};

Crashed crashAfterEditing() {
    QFile::remove(autosave());
    auto w = std::make_unique<MainWindow>();
    fileio::FileController files(w.get());
    attn::SceneSpec spec = w->scene()->spec();
    spec.text = "the cat that the dog chased ran away";
    spec.heads = 2;
    spec.temperature = 0.5f;
    spec.mask.kind = attn::MaskKind::Causal;
    spec.seed = 77;
    w->scene()->setSpec(spec, QStringLiteral("edit"));
    w->scene()->setSelection(Selection{3, 1, 1});
    files.autosave();
    return {w->scene()->spec(), w->scene()->selection()};
}

/// Starts the window as `attnscope` does, answering the recovery question with `answer`;
/// returns how many times it was asked.
int startAnswering(MainWindow& w, bool answer, QDateTime* askedAbout = nullptr) {
    fileio::attachDataIo(&w, {});
    auto* files = w.findChild<fileio::FileController*>();
    if (!files) return -1;
    int asked = 0;
    files->setRecoveryPrompt([&asked, answer, askedAbout](const QDateTime& savedAt) {
        ++asked;
        if (askedAbout) *askedAbout = savedAt;
        return answer;
    });
    test_support::showWindow(w);  // runs the deferred start-up: recovery, then files
    QCoreApplication::processEvents();
    test_support::settle(w.computeService());
    files->setRecoveryPrompt({});
    return asked;
}

}  // namespace

class IoRecoveryTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        // An autosave path of its own: other test programs (run in parallel) write theirs.
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeRecoveryTest"));
        QFile::remove(autosave());
    }
    void cleanup() { QFile::remove(autosave()); }

    void acceptRestoresTheSceneExactly() {
        const Crashed crashed = crashAfterEditing();
        QVERIFY(QFile::exists(autosave()));
        const QDateTime written = QFileInfo(autosave()).lastModified();
        MainWindow w;
        QDateTime askedAbout;
        QCOMPARE(startAnswering(w, true, &askedAbout), 1);
        QCOMPARE(askedAbout, written);
        QVERIFY(w.scene()->spec() == crashed.spec);
        QCOMPARE(w.scene()->selection().query, crashed.selection.query);
        QCOMPARE(w.scene()->selection().head, crashed.selection.head);
        QCOMPARE(test_support::compareWithCore(w.heatmapGrid(), crashed.spec), QString());
        // Restored work is saved nowhere: unnamed, modified, and the autosave is not a
        // recent file (it is deleted).
        auto* files = w.findChild<fileio::FileController*>();
        QVERIFY(files->currentFile().isEmpty());
        QVERIFY(!w.scene()->undoStack()->isClean());
        QVERIFY(w.isWindowModified());
        QVERIFY(!QSettings()
                     .value(settings_keys::kRecentFiles)
                     .toStringList()
                     .contains(QFileInfo(autosave()).absoluteFilePath()));
        QVERIFY(!QFile::exists(autosave()));
    }

    void declineKeepsTheDefaultScene() {
        crashAfterEditing();
        QVERIFY(QFile::exists(autosave()));
        MainWindow fresh;
        const attn::SceneSpec defaults = fresh.scene()->spec();
        MainWindow w;
        QCOMPARE(startAnswering(w, false), 1);
        QVERIFY(w.scene()->spec() == defaults);
        QCOMPARE(w.scene()->undoStack()->count(), 0);
        QVERIFY(w.scene()->undoStack()->isClean());
        QVERIFY(!QFile::exists(autosave()));
        // Asked once only: a later start finds nothing to recover.
        MainWindow again;
        QCOMPARE(startAnswering(again, true), 0);
        QVERIFY(again.scene()->spec() == defaults);
    }

    void cleanExitLeavesNothingToRecover() {
        crashAfterEditing();
        {
            MainWindow w;
            auto* files = new fileio::FileController(&w);
            files->setQuiet(true);
            w.scene()->undoStack()->setClean();  // nothing unsaved: closing does not ask
            QVERIFY(w.close());
        }
        QVERIFY(!QFile::exists(autosave()));
        MainWindow w;
        QCOMPARE(startAnswering(w, true), 0);
    }

    void brokenAutosaveChangesNothing() {
        QFile f(autosave());
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"attnscope-session\", \"version\": 1, \"scene\": [");
        f.close();
        MainWindow fresh;
        const attn::SceneSpec defaults = fresh.scene()->spec();
        MainWindow w;
        fileio::attachDataIo(&w, {});
        auto* files = w.findChild<fileio::FileController*>();
        files->setQuiet(true);  // the failure is reported in lastError, not a message box
        int asked = 0;
        files->setRecoveryPrompt([&asked](const QDateTime&) { return ++asked > 0; });
        QTRY_COMPARE(asked, 1);
        QVERIFY2(files->lastError().contains(QStringLiteral("autosave.attnscope")),
                 qPrintable(files->lastError()));
        QVERIFY(w.scene()->spec() == defaults);
        QVERIFY(!QFile::exists(autosave()));
    }
};

QTEST_MAIN(IoRecoveryTest)
#include "io_recovery_test.moc"
