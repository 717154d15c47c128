// QtTest: an autosave that cannot be written (a full disk, a folder that is not writable) is
// said at once and tried again until it works. The write is made to fail without a full disk:
// a folder stands where the window's autosave file goes (root ignores permission bits, not
// that), and the timers are shortened. A typed edit's autosave fails, which shows at once in the
// window's autosave banner and status bar, naming the file and the reason, while the edit stays;
// the retry timer writes the autosave once the folder is gone and the banner goes; Retry now
// (clicked) tries at once; saving (nothing unsaved) takes the warning away. A volume without room
// for an autosave is said at the first unsaved change, before any write.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStatusBar>
#include <QUndoStack>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "widgets/alert_banner.hpp"
#include "widgets/token_editor.hpp"

class AutosaveWarningTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        // An autosave folder of its own: other test programs (run in parallel) write theirs.
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeAutosaveWarningTest"));
        QDir(fileio::FileController::autosaveFolder()).removeRecursively();
    }
    void cleanupTestCase() { QDir(fileio::FileController::autosaveFolder()).removeRecursively(); }

    void aFailingAutosaveIsSaidAtOnceAndRetried() {
        MainWindow w;
        fileio::attachDataIo(&w, {});
        auto* files = w.findChild<fileio::FileController*>();
        QVERIFY(files);
        files->setQuiet(true);
        files->setAutosaveIntervals(200, 200);  // the minute's and the 10 s' timers, shortened
        test_support::showWindow(w);
        AlertBanner* banner = files->autosaveBanner();
        QVERIFY(banner->isHidden());
        const QString path = files->autosavePath();
        QVERIFY(QDir().mkpath(path));  // the autosave cannot be written there

        // An edit, typed: the timer's autosave fails, and the window says so at once.
        QPlainTextEdit* edit = w.tokenEditor()->editor();
        QTest::mouseClick(edit->viewport(), Qt::LeftButton);
        QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(edit, QStringLiteral("the cat sat"));
        QVERIFY(QTest::qWaitFor([&] { return !banner->isHidden(); }, 20000));
        const QString expected =
            QStringLiteral(
                "Autosave failed, so the unsaved changes have no backup: Cannot save: "
                "%1: is a folder, not a file. AttnScope tries again every 1 s; saving "
                "the session elsewhere keeps them safe.")
                .arg(path);
        QCOMPARE(banner->message(), expected);
        QCOMPARE(w.statusBar()->currentMessage(), expected);
        QVERIFY(QFileInfo(path).isDir());
        QCOMPARE(w.scene()->spec().text, std::string("the cat sat"));
        QVERIFY(!w.scene()->undoStack()->isClean());

        // The disk has room again: the retry writes the autosave, and the warning goes.
        QVERIFY(QDir(path).removeRecursively());
        QVERIFY(QTest::qWaitFor([&] { return banner->isHidden(); }, 20000));
        QVERIFY(QFileInfo(path).isFile());
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Autosaved to %1").arg(path));

        // Blocked again, with a retry far off: Retry now (clicked) tries at once.
        files->setAutosaveIntervals(600'000, 600'000);
        QVERIFY(QFile::remove(path));
        QVERIFY(QDir().mkpath(path));
        files->autosave();  // what the minute's timer does
        QVERIFY(banner->message().contains(
            QStringLiteral("%1: is a folder, not a file. AttnScope tries again every 600 s")
                .arg(path)));
        QVERIFY(QDir(path).removeRecursively());
        QTest::mouseClick(banner->actionButton(), Qt::LeftButton);
        QVERIFY(banner->isHidden());
        QVERIFY(QFileInfo(path).isFile());

        // Saved (nothing unsaved left): no warning is due even if the autosave could not be.
        QVERIFY(QFile::remove(path));
        QVERIFY(QDir().mkpath(path));
        files->autosave();
        QVERIFY(!banner->isHidden());
        w.scene()->undoStack()->setClean();
        QVERIFY(banner->isHidden());
        QVERIFY(QDir(path).removeRecursively());
    }

    // A full volume is said at the first unsaved change, before the first autosave is due (a
    // minute later): the volume's free bytes are read, nothing is written. Once the volume has
    // room, Retry now writes the autosave and the warning goes.
    void aFullVolumeIsSaidAtTheFirstChange() {
        MainWindow w;
        fileio::attachDataIo(&w, {});
        auto* files = w.findChild<fileio::FileController*>();
        QVERIFY(files);
        files->setQuiet(true);
        files->setAutosaveIntervals(3'600'000, 3'600'000);  // no timer fires in this test
        qint64 free = 1000;
        QString asked;
        files->setVolumeProbe([&](const QString& folder) {
            asked = folder;
            return free;
        });
        test_support::showWindow(w);
        AlertBanner* banner = files->autosaveBanner();
        QVERIFY(banner->isHidden());

        QPlainTextEdit* edit = w.tokenEditor()->editor();
        QTest::mouseClick(edit->viewport(), Qt::LeftButton);
        QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(edit, QStringLiteral("the cat sat"));
        QVERIFY(QTest::qWaitFor([&] { return !w.scene()->undoStack()->isClean(); }, 20000));
        QVERIFY(!banner->isHidden());  // at once: no timer has fired
        QCOMPARE(asked, fileio::FileController::autosaveFolder());
        const QString expected =
            QStringLiteral(
                "Autosave failed, so the unsaved changes have no backup: the volume of %1 has "
                "%2 free, less than an autosave needs (%3). AttnScope tries again every 3600 s; "
                "saving the session elsewhere keeps them safe.")
                .arg(asked, QLocale().formattedDataSize(1000), QLocale().formattedDataSize(65536));
        QCOMPARE(banner->message(), expected);
        QCOMPARE(w.statusBar()->currentMessage(), expected);
        QVERIFY(!QFileInfo::exists(files->autosavePath()));  // nothing was written

        free = qint64(1) << 40;
        QTest::mouseClick(banner->actionButton(), Qt::LeftButton);
        QVERIFY(banner->isHidden());
        QVERIFY(QFileInfo(files->autosavePath()).isFile());
        w.scene()->undoStack()->setClean();
    }
};

QTEST_MAIN(AutosaveWarningTest)
#include "autosave_warning_test.moc"
