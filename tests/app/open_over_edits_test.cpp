// QtTest: never lose an edit (issue 26, item 1). Opening a file from File ▸ Open Recent, an
// example from File ▸ Examples or a model over a modified document asks to save first, as New
// and Quit do: Cancel keeps the edit and opens nothing, Discard opens. A restored autosave names
// the document and the time it restores, keeps its session file (title, Ctrl+S saves there) and
// stays modified. The message boxes are the real ones, answered with mouse clicks.
#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QMenu>
#include <QMessageBox>
#include <QTimer>
#include <QUndoStack>
#include <QtTest>
#include <memory>

#include "app_test_support.hpp"
#include "attn/io/session/session.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "io/model_controller.hpp"

namespace {

/// Answers every message box that comes up with a mouse click on `button`, keeping its text.
class BoxAnswerer : public QObject {
  public:
    explicit BoxAnswerer(QMessageBox::StandardButton button) : button_(button) {
        timer_.setInterval(20);
        connect(&timer_, &QTimer::timeout, this, &BoxAnswerer::answer);
        timer_.start();
    }
    QStringList texts;

  private:
    void answer() {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box || !box->isVisible()) return;
        texts << box->text();
        QAbstractButton* b = box->button(button_);
        if (b)
            QTest::mouseClick(b, Qt::LeftButton);
        else
            box->reject();  // a box without that button: the test sees its text, and fails
    }
    QMessageBox::StandardButton button_;
    QTimer timer_;
};

/// A window as `attnscope` builds it, with an edit nobody saved.
void edit(MainWindow& w) {
    attn::SceneSpec s = w.scene()->spec();
    s.temperature = 0.25f;
    s.heads = 2;
    w.scene()->setSpec(s, QStringLiteral("edit"));
    QVERIFY(!w.scene()->undoStack()->isClean());
}

QAction* exampleAction(MainWindow& w) {
    auto* menu = w.findChild<QMenu*>(QStringLiteral("menuExamples"));
    return menu && !menu->actions().isEmpty() ? menu->actions().first() : nullptr;
}

}  // namespace

class OpenOverEditsTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        // An autosave path of its own: other test programs (run in parallel) write theirs.
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeOpenOverEditsTest"));
    }

    void exampleOverAnEditAsksAndCancelKeepsIt() {
        MainWindow w;
        fileio::attachDataIo(&w, {});
        test_support::showWindow(w);
        edit(w);
        const attn::SceneSpec before = w.scene()->spec();
        const int steps = w.scene()->undoStack()->count();
        QAction* example = exampleAction(w);
        QVERIFY(example);
        {
            BoxAnswerer cancel(QMessageBox::Cancel);
            example->trigger();
            QCOMPARE(cancel.texts.size(), 1);
            QVERIFY2(cancel.texts.first().contains(QStringLiteral("unsaved changes")),
                     qPrintable(cancel.texts.first()));
        }
        QVERIFY(w.scene()->spec() == before);
        QCOMPARE(w.scene()->undoStack()->count(), steps);
        QVERIFY(w.isWindowModified());
        {
            BoxAnswerer discard(QMessageBox::Discard);
            example->trigger();
            QCOMPARE(discard.texts.size(), 1);
        }
        QVERIFY(w.scene()->spec().data);
        QVERIFY(!w.isWindowModified());
    }

    void recentFileOverAnEditAsks() {
        MainWindow w;
        fileio::attachDataIo(&w, {});
        test_support::showWindow(w);
        w.addRecentFile(test_support::fixture("bertviz_distilbert_headview.json"));
        edit(w);
        const attn::SceneSpec before = w.scene()->spec();
        QVERIFY(!w.recentMenu()->actions().isEmpty());
        {
            BoxAnswerer cancel(QMessageBox::Cancel);
            w.recentMenu()->actions().first()->trigger();
            QCOMPARE(cancel.texts.size(), 1);
        }
        QVERIFY(w.scene()->spec() == before);
        // A clean document opens without a question.
        w.scene()->undoStack()->setClean();
        {
            BoxAnswerer none(QMessageBox::Cancel);
            w.recentMenu()->actions().first()->trigger();
            QCOMPARE(none.texts.size(), 0);
        }
        QVERIFY(w.scene()->spec().data);
    }

    void modelOverAnEditAsks() {
        MainWindow w;
        fileio::attachDataIo(&w, {});
        test_support::showWindow(w);
        edit(w);
        const attn::SceneSpec before = w.scene()->spec();
        auto* models = w.findChild<fileio::ModelController*>();
        QVERIFY(models);
        models->setQuiet(true);
        BoxAnswerer cancel(QMessageBox::Cancel);
        // Cancelled before the folder is even looked at: no error, nothing changed.
        QVERIFY(!models->openModel(QStringLiteral("/nonexistent/gpt2")));
        QCOMPARE(cancel.texts.size(), 1);
        QVERIFY(models->lastError().isEmpty());
        QVERIFY(w.scene()->spec() == before);
    }

    void restoredAutosaveKeepsItsSessionFile() {
        QTemporaryDir dir;
        const QString session = dir.filePath(QStringLiteral("mine.attnscope"));
        // No autosave of an earlier run may be offered first.
        QDir(fileio::FileController::autosaveFolder()).removeRecursively();
        QString autosave;
        attn::SceneSpec edited;
        {
            // A session opened, edited, autosaved; then the program dies (no close event).
            auto w = std::make_unique<MainWindow>();
            fileio::FileController files(w.get());
            files.setQuiet(true);
            QString error;
            QVERIFY2(files.saveTo(session, &error), qPrintable(error));
            QVERIFY(files.openFile(session));
            edit(*w);
            edited = w->scene()->spec();
            files.autosave();
            autosave = files.autosavePath();
            QVERIFY(QFile::exists(autosave));
        }
        const QDateTime savedAt = QFileInfo(autosave).lastModified();
        MainWindow w;
        BoxAnswerer yes(QMessageBox::Yes);
        fileio::attachDataIo(&w, {});
        test_support::showWindow(w);
        QTRY_COMPARE(yes.texts.size(), 1);
        const QString question = yes.texts.first();
        QVERIFY2(question.contains(QStringLiteral("mine.attnscope")), qPrintable(question));
        QVERIFY2(question.contains(QLocale().toString(savedAt, QLocale::ShortFormat)),
                 qPrintable(question));
        QTRY_VERIFY(w.scene()->spec() == edited);
        auto* files = w.findChild<fileio::FileController*>();
        QCOMPARE(files->currentFile(), QFileInfo(session).absoluteFilePath());
        QVERIFY2(w.windowTitle().startsWith(QStringLiteral("mine.attnscope")),
                 qPrintable(w.windowTitle()));
        QVERIFY(w.isWindowModified());
        QVERIFY(!QFile::exists(autosave));
        QVERIFY(!QFile::exists(autosave + QStringLiteral(".document")));
        // File ▸ Save (Ctrl+S) writes the session the changes belong to, without asking where.
        w.saveAction()->trigger();
        QVERIFY(!w.isWindowModified());
        const attn::io::Session saved =
            attn::io::load_session(QFile::encodeName(session).toStdString());
        QCOMPARE(saved.spec.temperature, 0.25f);
        QCOMPARE(saved.spec.heads, attn::Index(2));
    }

    void untitledAutosaveSaysSo() {
        fileio::FileController::Recovery untitled;
        untitled.savedAt = QDateTime(QDate(2026, 3, 4), QTime(5, 6));
        const QString q = fileio::FileController::recoveryQuestion(untitled);
        QVERIFY2(q.contains(QStringLiteral("untitled scene")), qPrintable(q));
        QVERIFY2(q.contains(QLocale().toString(QDateTime(QDate(2026, 3, 4), QTime(5, 6)),
                                               QLocale::ShortFormat)),
                 qPrintable(q));
    }
};

QTEST_MAIN(OpenOverEditsTest)
#include "open_over_edits_test.moc"
