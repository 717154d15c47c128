// QtTest: a document's file belongs to the undo state it came with (issue 37, items 1 and 15).
// Opening session s1 over s0, then Ctrl+Z and Ctrl+S (real key events) writes s0, never s1; a
// model opened over a session makes a new, untitled document, and Ctrl+Z gives the session
// back. File ▸ Save As (its dialog answered with typed keys) puts the new session in File ▸ Open
// Recent; a session the Python module writes to its scratch folder and hands to the window over
// the instance socket (as head_view does) is opened but stays out of it.
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QLineEdit>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QtTest>
#include <thread>

#include "app_test_support.hpp"
#include "attn/io/session/session.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "io/model_controller.hpp"
#include "io/single_instance.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "tiny_folders.hpp"
#include "views/heatmap_grid.hpp"

namespace {

float savedTemperature(const QString& path) {
    return attn::io::load_session(QFile::encodeName(path).toStdString()).spec.temperature;
}

void setTemperature(MainWindow& w, float t) {
    attn::SceneSpec s = w.scene()->spec();
    s.temperature = t;
    w.scene()->setSpec(s, QStringLiteral("Change temperature"));
}

/// The paths File ▸ Open Recent lists (each entry's tooltip).
QStringList recentPaths(MainWindow& w) {
    QStringList out;
    for (QAction* a : w.recentMenu()->actions())
        out << a->toolTip();
    return out;
}

/// Opens PATH as File ▸ Open Recent does: the entry, clicked.
void openRecent(MainWindow& w, const QString& path) {
    w.addRecentFile(path);
    QAction* entry = w.recentMenu()->actions().value(0);
    QVERIFY(entry && entry->toolTip() == path);
    entry->trigger();
}

}  // namespace

class DocumentFilesTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QVERIFY(dir_.isValid());
        s0_ = dir_.filePath(QStringLiteral("s0.attnscope"));
        s1_ = dir_.filePath(QStringLiteral("s1.attnscope"));
        MainWindow w;
        fileio::FileController files(&w);
        QString error;
        setTemperature(w, 0.5f);
        QVERIFY2(files.saveTo(s0_, &error), qPrintable(error));
        setTemperature(w, 2.0f);
        QVERIFY2(files.saveTo(s1_, &error), qPrintable(error));
    }

    void undoingAnOpenGivesBackTheFileSaveWrites() {
        MainWindow w;
        auto* files = fileio::attachDataIo(&w, {});
        files->setQuiet(true);  // the unsaved-changes question answers Discard
        test_support::showWindow(w);
        openRecent(w, s0_);
        QCOMPARE(files->currentFile(), s0_);
        setTemperature(w, 0.75f);  // an edit of s0, unsaved
        openRecent(w, s1_);
        QCOMPARE(w.scene()->spec().temperature, 2.0f);
        QVERIFY2(w.windowTitle().startsWith(QStringLiteral("s1.attnscope")),
                 qPrintable(w.windowTitle()));
        // Ctrl+Z takes the open back: s0 with its edit is the document again.
        HeatmapGrid* grid = w.heatmapGrid();
        QTest::keyClick(grid, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w.scene()->spec().temperature, 0.75f);
        QCOMPARE(files->currentFile(), s0_);
        QVERIFY2(w.windowTitle().startsWith(QStringLiteral("s0.attnscope")),
                 qPrintable(w.windowTitle()));
        QVERIFY(w.isWindowModified());
        // Ctrl+S writes s0; s1 keeps what it held.
        QTest::keyClick(grid, Qt::Key_S, Qt::ControlModifier);
        QVERIFY(!w.isWindowModified());
        QCOMPARE(savedTemperature(s0_), 0.75f);
        QCOMPARE(savedTemperature(s1_), 2.0f);
        // Edit ▸ Redo opens s1 again, under its own name.
        QAction* redo = w.findChild<QAction*>(QStringLiteral("actionRedo"));
        QVERIFY(redo);
        redo->trigger();
        QCOMPARE(files->currentFile(), s1_);
        QCOMPARE(w.scene()->spec().temperature, 2.0f);
    }

    void undoingAnOpenOverAnUntitledSceneLeavesItUntitled() {
        MainWindow w;
        auto* files = fileio::attachDataIo(&w, {});
        files->setQuiet(true);
        test_support::showWindow(w);
        openRecent(w, s1_);
        QCOMPARE(files->currentFile(), s1_);
        QTest::keyClick(w.heatmapGrid(), Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(files->currentFile(), QString());
        QVERIFY2(w.windowTitle().startsWith(QStringLiteral("untitled")),
                 qPrintable(w.windowTitle()));
    }

    void aModelOpenedOverASessionIsANewDocument() {
        QTemporaryDir model;
        QVERIFY(model.isValid());
        const QString error = test_support::writeTinyGpt2(model.path());
        QVERIFY2(error.isEmpty(), qPrintable(error));
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        auto* files = w.findChild<fileio::FileController*>();
        files->setQuiet(true);
        openRecent(w, s1_);
        QVERIFY(models->openModel(model.path()));
        QVERIFY(w.scene()->spec().is_model());
        // Not s1's: Save would ask where instead of writing the model's scene over s1.
        QCOMPARE(files->currentFile(), QString());
        QVERIFY2(!w.windowTitle().contains(QStringLiteral("s1.attnscope")),
                 qPrintable(w.windowTitle()));
        QVERIFY2(w.windowTitle().startsWith(QStringLiteral("model ")), qPrintable(w.windowTitle()));
        QTest::keyClick(w.heatmapGrid(), Qt::Key_Z, Qt::ControlModifier);
        QVERIFY(!w.scene()->spec().is_model());
        QCOMPARE(files->currentFile(), s1_);
        QVERIFY2(w.windowTitle().startsWith(QStringLiteral("s1.attnscope")),
                 qPrintable(w.windowTitle()));
        QVERIFY(!w.isWindowModified());  // s1 as it was opened
    }

    void saveAsPutsTheSessionInOpenRecent() {
        MainWindow w;
        auto* files = fileio::attachDataIo(&w, {});
        files->setQuiet(true);
        test_support::showWindow(w);
        setTemperature(w, 0.25f);
        const QString path = dir_.filePath(QStringLiteral("saved-as.attnscope"));
        // The dialog is answered as a user answers it: the name typed, then a click on Save.
        QAction* saveAs = w.findChild<QAction*>(QStringLiteral("actionSaveAs"));
        QVERIFY(saveAs);
        const int attempts =
            test_support::answerFileDialog(saveAs, dir_.path(), path, QDialogButtonBox::Save);
        QVERIFY(attempts > 0);
        QCOMPARE(files->currentFile(), path);
        QCOMPARE(savedTemperature(path), 0.25f);
        QCOMPARE(recentPaths(w).value(0), path);
    }

    void pythonScratchSessionsStayOutOfOpenRecent() {
        // The Python module's own writers: a scratch folder, the arrays, a session on them.
        QProcess python;
        python.start(
            QStringLiteral("/usr/bin/python3"),
            {QStringLiteral("-c"),
             QStringLiteral(
                 "import os, sys; sys.path.insert(0, sys.argv[1]); import numpy as np\n"
                 "from attnscope.files import save, scratch_folder, write_session\n"
                 "folder = scratch_folder()\n"
                 "w = np.full((1, 1, 1, 2, 2), 0.5)\n"
                 "data = save(os.path.join(folder, 'attention.npz'), tuple(w), ['a', 'b'])\n"
                 "print(write_session(os.path.join(folder, 'head_view.attnscope'), data))\n"),
             QStringLiteral(ATTN_CORE_TESTS_DIR "/../../python")});
        QVERIFY(python.waitForFinished(60000));
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
        const QString session = QString::fromUtf8(python.readAllStandardOutput()).trimmed();
        QVERIFY2(QFileInfo(session).isFile(), qPrintable(session));
        MainWindow w;
        auto* files = fileio::attachDataIo(&w, {});
        files->setQuiet(true);
        test_support::showWindow(w);
        openRecent(w, s0_);
        // Handed over as `attnscope FILE` hands it (the second process's side in a thread).
        fileio::InstanceServer server;
        const QString name = dir_.filePath(QStringLiteral("instance"));
        QVERIFY(server.listen(name));
        fileio::openHandedFiles(&server, &w, files);
        bool handed = false;
        std::thread other([&] { handed = fileio::handOff(name, {session}, 30000); });
        const bool opened = QTest::qWaitFor([&] { return files->currentFile() == session; }, 30000);
        other.join();
        QVERIFY(handed);
        QVERIFY(opened);
        QVERIFY(w.scene()->spec().is_loaded());
        QVERIFY2(!recentPaths(w).contains(session), qPrintable(recentPaths(w).join(u'|')));
        QCOMPARE(recentPaths(w).value(0), s0_);
        QDir(QFileInfo(session).absolutePath()).removeRecursively();
    }

  private:
    QTemporaryDir dir_;
    QString s0_, s1_;
};

QTEST_MAIN(DocumentFilesTest)
#include "document_files_test.moc"
