// QtTest: autosave and crash recovery. Each window autosaves to a file of its own, locked while
// the window lives. A session that ends without closing its window leaves its autosave behind;
// the next start (attachDataIo, as `attnscope` runs it) asks about each one left, naming its
// document and time. Yes restores the scene exactly, unsaved and unnamed; No keeps the default
// scene and deletes the autosave. A live instance's autosave (another process, holding its
// lock) is neither offered nor deleted; a killed instance's is. The question is answered
// through an injected prompt, so no modal dialog blocks the test.
#include <QDir>
#include <QFile>
#include <QLocale>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>
#include <memory>
#include <vector>

#include "app_test_support.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "settings_keys.hpp"
#include "views/heatmap_grid.hpp"

namespace {

using Recovery = fileio::FileController::Recovery;

QString folder() {
    return fileio::FileController::autosaveFolder();
}

/// The autosave sessions in the folder (every instance's).
QStringList autosaves() {
    return QDir(folder()).entryList({QStringLiteral("autosave*.attnscope")}, QDir::Files);
}

/// What a crashed session leaves: an edited scene autosaved by the timer's autosave(), then
/// the window destroyed without a close event (so nothing removes the file).
struct Crashed {
    attn::SceneSpec spec;
    Selection selection;
    QString autosave;
};

Crashed crashAfterEditing() {
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
    return {w->scene()->spec(), w->scene()->selection(), files.autosavePath()};
}

/// Starts the window as `attnscope` does, answering every recovery question with `answer`;
/// returns the questions asked.
std::vector<Recovery> startAnswering(MainWindow& w, bool answer) {
    fileio::attachDataIo(&w, {});
    auto* files = w.findChild<fileio::FileController*>();
    std::vector<Recovery> asked;
    if (!files) return asked;
    files->setRecoveryPrompt([&asked, answer](const Recovery& r) {
        asked.push_back(r);
        return answer;
    });
    test_support::showWindow(w);  // runs the deferred start-up: recovery, then files
    QCoreApplication::processEvents();
    test_support::settle(w.computeService());
    files->setRecoveryPrompt({});
    return asked;
}

/// Another AttnScope process (tests/app/support/autosave_instance.cpp) that opened `document`
/// (none when empty), edited and autosaved; `autosave` is its file.
struct Instance {
    std::unique_ptr<QProcess> process = std::make_unique<QProcess>();
    QString autosave;
};

Instance startInstance(const QString& document) {
    Instance i;
    i.process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    // The other instance is support/autosave_instance.cpp, linked into this very program.
    i.process->start(QCoreApplication::applicationFilePath(),
                     {QStringLiteral("autosave_instance"), QCoreApplication::applicationName(),
                      document.isEmpty() ? QStringLiteral("-") : document});
    // Its one line comes once the autosave exists (or never, when it failed and exited).
    while (!i.process->canReadLine() && i.process->waitForReadyRead(-1)) {
    }
    i.autosave = QString::fromLocal8Bit(i.process->readLine()).trimmed();
    return i;
}

/// A crash: SIGKILL, so the lock file stays behind with a PID that no longer runs.
void kill(Instance& i) {
    i.process->kill();
    i.process->waitForFinished(-1);
}

QString tokenFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size()) return {};
    return QFileInfo(f).absoluteFilePath();
}

}  // namespace

class IoRecoveryTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        // An autosave folder of its own: other test programs (run in parallel) write theirs, and
        // so does another copy of this one (another checkout's suite on the same machine).
        QCoreApplication::setApplicationName(
            QStringLiteral("AttnScopeRecoveryTest-%1").arg(QCoreApplication::applicationPid()));
        QDir(folder()).removeRecursively();
    }
    void cleanup() { QDir(folder()).removeRecursively(); }

    void acceptRestoresTheSceneExactly() {
        const Crashed crashed = crashAfterEditing();
        QVERIFY(QFile::exists(crashed.autosave));
        const QDateTime written = QFileInfo(crashed.autosave).lastModified();
        MainWindow w;
        const std::vector<Recovery> asked = startAnswering(w, true);
        QCOMPARE(asked.size(), std::size_t(1));
        QCOMPARE(asked[0].savedAt, written);
        QVERIFY(asked[0].document.isEmpty());  // an untitled scene, and the question says so
        QVERIFY(fileio::FileController::recoveryQuestion(asked[0]).contains(
            QStringLiteral("untitled")));
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
                     .contains(QFileInfo(crashed.autosave).absoluteFilePath()));
        QVERIFY(!QFile::exists(crashed.autosave));
    }

    void declineKeepsTheDefaultScene() {
        const Crashed crashed = crashAfterEditing();
        QVERIFY(QFile::exists(crashed.autosave));
        MainWindow fresh;
        const attn::SceneSpec defaults = fresh.scene()->spec();
        MainWindow w;
        QCOMPARE(startAnswering(w, false).size(), std::size_t(1));
        QVERIFY(w.scene()->spec() == defaults);
        QCOMPARE(w.scene()->undoStack()->count(), 0);
        QVERIFY(w.scene()->undoStack()->isClean());
        QVERIFY(!QFile::exists(crashed.autosave));
        // Asked once only: a later start finds nothing to recover.
        MainWindow again;
        QCOMPARE(startAnswering(again, true).size(), std::size_t(0));
        QVERIFY(again.scene()->spec() == defaults);
    }

    void cleanExitLeavesNothingToRecover() {
        crashAfterEditing();
        MainWindow first;
        QCOMPARE(startAnswering(first, false).size(), std::size_t(1));
        {
            MainWindow w;
            auto* files = new fileio::FileController(&w);
            files->setQuiet(true);
            attn::SceneSpec spec = w.scene()->spec();
            spec.seed = 5;
            w.scene()->setSpec(spec, QStringLiteral("edit"));
            files->autosave();
            QVERIFY(QFile::exists(files->autosavePath()));
            w.scene()->undoStack()->setClean();  // nothing unsaved: closing does not ask
            QVERIFY(w.close());
            QVERIFY(!QFile::exists(files->autosavePath()));
        }
        QCOMPARE(autosaves(), QStringList());
        MainWindow w;
        QCOMPARE(startAnswering(w, true).size(), std::size_t(0));
    }

    void brokenAutosaveChangesNothing() {
        // What a crashed process (PID 999999 is above Linux's pid_max) left, unlocked.
        QVERIFY(QDir().mkpath(folder()));
        const QString path = QDir(folder()).filePath(QStringLiteral("autosave-999999-1.attnscope"));
        QFile f(path);
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
        files->setRecoveryPrompt([&asked](const Recovery&) { return ++asked > 0; });
        QTRY_COMPARE(asked, 1);
        QVERIFY2(files->lastError().contains(QStringLiteral("autosave-999999-1.attnscope")),
                 qPrintable(files->lastError()));
        QVERIFY(w.scene()->spec() == defaults);
        QVERIFY(!QFile::exists(path));
    }

    // Two processes: the second start neither offers nor deletes the first's live autosave.
    void aLiveInstancesAutosaveIsLeftAlone() {
        Instance live = startInstance({});
        QVERIFY2(QFile::exists(live.autosave), qPrintable(live.autosave));
        QVERIFY(QFile::exists(live.autosave + QStringLiteral(".lock")));
        MainWindow w;
        QCOMPARE(startAnswering(w, true).size(), std::size_t(0));
        QVERIFY(QFile::exists(live.autosave));
        // The first instance goes on autosaving to its own file, and a clean close removes it.
        live.process->write("close\n");
        live.process->closeWriteChannel();
        QVERIFY(live.process->waitForFinished(-1));
        QCOMPARE(live.process->exitCode(), 0);
        QVERIFY(!QFile::exists(live.autosave));
    }

    // Two killed processes: the next start offers both, naming each one's document and time;
    // declined, both go, locks included.
    void everyOrphanIsOfferedWithItsDocumentAndTime() {
        QTemporaryDir dir;
        const QString alpha = tokenFile(dir, QStringLiteral("alpha.txt"), "alpha one two three");
        const QString beta = tokenFile(dir, QStringLiteral("beta.txt"), "beta four five six");
        QVERIFY(!alpha.isEmpty() && !beta.isEmpty());
        Instance a = startInstance(alpha), b = startInstance(beta);
        QVERIFY(QFile::exists(a.autosave) && QFile::exists(b.autosave));
        QVERIFY(a.autosave != b.autosave);
        const QDateTime aSaved = QFileInfo(a.autosave).lastModified();
        const QDateTime bSaved = QFileInfo(b.autosave).lastModified();
        kill(a);
        kill(b);
        QVERIFY(QFile::exists(a.autosave + QStringLiteral(".lock")));  // stale, not removed
        MainWindow w;
        const std::vector<Recovery> asked = startAnswering(w, false);
        QCOMPARE(asked.size(), std::size_t(2));
        QStringList documents;
        for (const Recovery& r : asked) {
            documents << r.document;
            QCOMPARE(r.count, 2);
            QCOMPARE(r.savedAt, r.document == alpha ? aSaved : bSaved);
            const QString question = fileio::FileController::recoveryQuestion(r);
            QVERIFY2(question.contains(QFileInfo(r.document).fileName()) &&
                         question.contains(QLocale().toString(r.savedAt, QLocale::ShortFormat)),
                     qPrintable(question));
        }
        documents.sort();
        QCOMPARE(documents, (QStringList{alpha, beta}));
        QVERIFY(asked[0].savedAt >= asked[1].savedAt);  // newest first
        QCOMPARE(autosaves(), QStringList());
        QVERIFY(!QFile::exists(a.autosave + QStringLiteral(".lock")));
    }

    // Restoring one of two keeps the other for the next start.
    void restoringOneKeepsTheOtherForTheNextStart() {
        Instance a = startInstance({}), b = startInstance({});
        kill(a);
        kill(b);
        {
            MainWindow w;
            QCOMPARE(startAnswering(w, true).size(), std::size_t(1));
            QCOMPARE(w.scene()->spec().seed, std::uint64_t(4321));  // the instance's edit
            QCOMPARE(autosaves().size(), qsizetype(1));
        }
        MainWindow next;
        QCOMPARE(startAnswering(next, false).size(), std::size_t(1));
        QCOMPARE(autosaves(), QStringList());
    }
};

QTEST_MAIN(IoRecoveryTest)
#include "io_recovery_test.moc"
