// QtTest: the small things a newcomer meets (issue 37, items 14 and 16). With a model open the
// sentence box's tooltip says what the model's tokenizer does; Ctrl+E exports from a text field
// too; a restored autosave's undo step names the document, never the autosave file; the status
// line says when the run on show is not the model's own; Help ▸ User Guide has the getting
// started, interventions, generation and Python pages, shipped inside the program.
#include <QAction>
#include <QDialog>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTimer>
#include <QUndoStack>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/file_controller.hpp"
#include "tiny_folders.hpp"
#include "widgets/token_editor.hpp"

namespace {

/// Claims Ctrl+E for the field it watches, as a line edit does on X11 (Ctrl+E is "end of line"
/// there, QKeySequence::MoveToEndOfLine; the offscreen platform's key scheme has no such binding).
class ClaimsCtrlE : public QObject {
  public:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::ShortcutOverride &&
            static_cast<QKeyEvent*>(event)->keyCombination() ==
                QKeyCombination(Qt::ControlModifier, Qt::Key_E)) {
            event->accept();  // the field's own: no shortcut runs
            return true;
        }
        return QObject::eventFilter(watched, event);
    }
};

/// Presses Ctrl+E in FIELD and returns the object name of the modal dialog that opens ("" when
/// none opens), closing it.
QString modalAfterCtrlE(QWidget* field) {
    QString seen;
    QTimer closer;
    closer.setInterval(20);
    QObject::connect(&closer, &QTimer::timeout, [&] {
        if (QWidget* modal = QApplication::activeModalWidget()) {
            seen = modal->objectName().isEmpty()
                       ? QString::fromLatin1(modal->metaObject()->className())
                       : modal->objectName();
            if (auto* d = qobject_cast<QDialog*>(modal)) d->reject();
        }
    });
    closer.start();
    ClaimsCtrlE claims;
    field->installEventFilter(&claims);
    field->setFocus();
    if (!QTest::qWaitFor([&] { return field->hasFocus(); }, 10000))
        return QStringLiteral("(no focus)");
    QTest::keyClick(field, Qt::Key_E, Qt::ControlModifier);
    // The dialog, when it opens, runs its own loop inside keyClick: it is closed by then.
    const bool opened = QTest::qWaitFor([&] { return !seen.isEmpty(); }, 2000);
    closer.stop();
    return opened ? seen : QString();
}

}  // namespace

class NewcomerDetailsTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeNewcomerDetailsTest"));
        QDir(fileio::FileController::autosaveFolder()).removeRecursively();
        QVERIFY(dir_.isValid());
        const QString error = test_support::writeTinyGpt2(dir_.path());
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void cleanupTestCase() { QDir(fileio::FileController::autosaveFolder()).removeRecursively(); }

    void sentenceTipSaysWhatTheTokenizerDoes() {
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models && models->openModel(dir_.path()));
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the cat")), QString());
        QCOMPARE(w.tokenEditor()->editor()->toolTip(),
                 QStringLiteral("The sentence the model reads; the heatmaps follow as you type. "
                                "The model's own tokenizer (GPT-2, a vocabulary of 258 tokens) "
                                "splits it into sub-word pieces, listed below: a word may "
                                "become several pieces."));
    }

    void ctrlEExportsFromATextField() {
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models && models->openModel(dir_.path()));
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the cat")), QString());
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QCOMPARE(modalAfterCtrlE(w.tokenEditor()->editor()), QStringLiteral("ExportDialog"));
        // A one-line field on show (a number field's text) as well.
        QLineEdit* line = nullptr;
        for (QLineEdit* e : w.findChildren<QLineEdit*>())
            if (!line && e->isVisible() && e->isEnabled() && !e->isReadOnly()) line = e;
        QVERIFY(line);
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QCOMPARE(modalAfterCtrlE(line), QStringLiteral("ExportDialog"));
    }

    void restoredAutosaveNamesTheDocument() {
        QString autosave;
        {
            // What a crash leaves: an edit autosaved, the window gone without closing.
            auto w = std::make_unique<MainWindow>();
            fileio::FileController files(w.get());
            attn::SceneSpec spec = w->scene()->spec();
            spec.temperature = 0.5f;
            w->scene()->setSpec(spec, QStringLiteral("edit"));
            files.autosave();
            autosave = files.autosavePath();
        }
        QVERIFY(QFile::exists(autosave));
        MainWindow w;
        fileio::attachDataIo(&w, {});
        auto* files = w.findChild<fileio::FileController*>();
        QVERIFY(files);
        files->setRecoveryPrompt([](const fileio::FileController::Recovery&) { return true; });
        test_support::showWindow(w);  // the deferred start-up offers the autosave
        QTRY_COMPARE(w.scene()->spec().temperature, 0.5f);
        files->setRecoveryPrompt({});
        QCOMPARE(w.scene()->undoStack()->undoText(),
                 QStringLiteral("Restore the autosaved untitled scene"));
        QAction* undo = w.findChild<QAction*>(QStringLiteral("actionUndo"));
        if (!undo)
            for (QAction* a : w.findChildren<QAction*>())
                if (a->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::Key_Z))) undo = a;
        QVERIFY(undo);
        QVERIFY2(!undo->text().contains(QStringLiteral("autosave-")), qPrintable(undo->text()));
    }

    void statusLineSaysTheRunIsNotTheModelsOwn() {
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models && models->openModel(dir_.path()));
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the cat")), QString());
        auto* note = w.findChild<QLabel*>(QStringLiteral("runChanges"));
        QVERIFY2(note, "no status-line note of the run's changes");
        QVERIFY(!note->isVisible());
        attn::SceneSpec spec = w.scene()->spec();
        spec.temperature = 0.5f;
        spec.scale = false;
        spec.interventions.ablated = {{attn::model::kSingleStack, 1, 0}};
        w.scene()->setSpec(spec, QStringLiteral("edit"));
        test_support::settle(w.computeService());
        QTRY_VERIFY(note->isVisible());
        QCOMPARE(note->text(),
                 QStringLiteral("Not the model's own run: unscaled · τ = 0.50 · 1 head ablated"));
        // A message takes the note's place instead of running under it, and gives it back.
        auto* size = w.findChild<QLabel*>(QStringLiteral("runSize"));
        QVERIFY(size);
        QTRY_VERIFY2(note->geometry().right() < size->geometry().left(),
                     "the note runs into the size label");
        w.statusBar()->showMessage(QStringLiteral("Opened the model tiny; it reads 16 tokens"));
        QVERIFY(!note->isVisible());
        w.statusBar()->clearMessage();
        QVERIFY(note->isVisible());
        w.scene()->undoStack()->undo();
        test_support::settle(w.computeService());
        QTRY_VERIFY(!note->isVisible());
    }

    void userGuideHasTheNewcomersPages() {
        MainWindow w;
        test_support::showWindow(w);
        QAction* action = w.findChild<QAction*>(QStringLiteral("actionUserGuide"));
        QVERIFY(action);
        action->trigger();
        auto* guide = w.findChild<QDialog*>(QStringLiteral("userGuide"));
        QVERIFY(guide);
        QVERIFY(QTest::qWaitForWindowExposed(guide));
        auto* list = guide->findChild<QListWidget*>();
        auto* browser = guide->findChild<QTextBrowser*>();
        QVERIFY(list && browser);
        const QStringList titles{QStringLiteral("Getting started"), QStringLiteral("Interventions"),
                                 QStringLiteral("Generation"), QStringLiteral("Python")};
        const QStringList starts{
            QStringLiteral("Getting started"),
            QStringLiteral("Interventions: ablation, knockout, logit lens, attribution"),
            QStringLiteral("Generation"), QStringLiteral("AttnScope from Python")};
        // Each page by a click in the list, as a reader picks it, with what it must teach.
        const QStringList teaches{QStringLiteral("Model ▸ Open Model…"),
                                  QStringLiteral("Run induction test"), QStringLiteral("Generate"),
                                  QStringLiteral("head_view")};
        for (int i = 0; i < titles.size(); ++i) {
            QCOMPARE(list->item(i)->text(), titles[i]);
            QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                              list->visualItemRect(list->item(i)).center());
            QVERIFY2(browser->toPlainText().startsWith(starts[i]),
                     qPrintable(browser->toPlainText().left(80)));
            QVERIFY2(browser->toPlainText().contains(teaches[i]), qPrintable(titles[i]));
        }
        // The interventions page's pictures come from the resources too.
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                          list->visualItemRect(list->item(1)).center());
        const QVariant shown = browser->document()->resource(
            QTextDocument::ImageResource,
            QUrl(QStringLiteral("screenshots/interventions-patching.png")));
        QVERIFY(shown.isValid() && !shown.value<QImage>().isNull());
        guide->close();
    }

  private:
    QTemporaryDir dir_;
};

QTEST_MAIN(NewcomerDetailsTest)
#include "newcomer_details_test.moc"
