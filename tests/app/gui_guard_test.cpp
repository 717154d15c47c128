// QtTest: no error in the GUI ends the process. Under the application attnscope runs
// (GuardedApplication), an exception thrown by a button's slot, by a step queued on the event
// loop, or by a background job's delivery on the GUI thread becomes a message — the window's
// error banner and its status bar, naming what failed, with no library text — and the window
// lives on with its unsaved edit. Real events: the sentence is typed, the button clicked.
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStatusBar>
#include <QToolButton>
#include <QUndoStack>
#include <QtTest>
#include <stdexcept>

#include "app_test_support.hpp"
#include "attn/util/error.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "model/unexpected_error.hpp"
#include "widgets/alert_banner.hpp"
#include "widgets/token_editor.hpp"

class GuiGuardTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeGuiGuardTest"));
        QVERIFY(qobject_cast<GuardedApplication*>(QCoreApplication::instance()));
    }

    void anErrorInAnActionIsAMessage() {
        MainWindow w;
        fileio::attachDataIo(&w, {});
        auto* files = w.findChild<fileio::FileController*>();
        QVERIFY(files);
        files->setQuiet(true);
        test_support::showWindow(w);
        // An unsaved edit, typed.
        QPlainTextEdit* edit = w.tokenEditor()->editor();
        QTest::mouseClick(edit->viewport(), Qt::LeftButton);
        QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(edit, QStringLiteral("the dog ran far"));
        QVERIFY(
            QTest::qWaitFor([&] { return w.scene()->spec().text == "the dog ran far"; }, 20000));
        QVERIFY(!w.scene()->undoStack()->isClean());
        QCOMPARE(w.errorBanner()->message(), QString());

        // A button whose slot throws a standard library error: clicked.
        auto* button = new QPushButton(QStringLiteral("&Break"), &w);
        button->move(0, 0);
        button->show();
        connect(button, &QPushButton::clicked, this,
                [] { throw std::out_of_range("vector::_M_range_check: __n (which is 7)"); });
        QTest::mouseClick(button, Qt::LeftButton);
        const QString clicked = w.errorBanner()->message();
        QCOMPARE(clicked, QStringLiteral("The “Break” button: an unexpected error (please report "
                                         "it). The window and its unsaved changes are kept."));
        QVERIFY(!w.errorBanner()->isHidden());
        QCOMPARE(w.statusBar()->currentMessage(), clicked);

        // A step queued on the event loop that throws one of AttnScope's own errors.
        QMetaObject::invokeMethod(
            qApp, [] { throw attn::ArgumentError("token id 45 is outside the vocabulary of 40"); },
            Qt::QueuedConnection);
        QVERIFY(QTest::qWaitFor([&] { return w.errorBanner()->message() != clicked; }, 20000));
        QCOMPARE(w.errorBanner()->message(),
                 QStringLiteral("A step queued on the window failed: token id 45 is outside the "
                                "vocabulary of 40. The window and its unsaved changes are kept."));

        // A background job whose delivery on the GUI thread throws.
        Scheduler::instance().run(
            &w, QStringLiteral("Next tokens"), [](attn::Progress&) { return 7; },
            [](int id) {
                throw attn::ArgumentError("token id " + std::to_string(id) + " has no text");
            });
        Scheduler::instance().waitForIdle(&w);
        QCOMPARE(w.errorBanner()->message(),
                 QStringLiteral("The result of “Next tokens” failed: token id 7 has no text. The "
                                "window and its unsaved changes are kept."));

        // The window lives on with the edit, unsaved, and works: another edit is typed.
        QVERIFY(w.isVisible());
        QCOMPARE(w.scene()->spec().text, std::string("the dog ran far"));
        QVERIFY(!w.scene()->undoStack()->isClean());
        QTest::keyClicks(edit, QStringLiteral(" and"));
        QVERIFY(QTest::qWaitFor([&] { return w.scene()->spec().text == "the dog ran far and"; },
                                20000));
        // The banner's × hides the message.
        auto* close = w.errorBanner()->findChild<QToolButton*>();
        QVERIFY(close);
        QTest::mouseClick(close, Qt::LeftButton);
        QVERIFY(w.errorBanner()->isHidden());
        w.scene()->undoStack()->setClean();  // nothing to ask when the window closes
    }
};

// attnscope's own application object (run_gui.cpp), not QTEST_MAIN's plain QApplication.
ATTN_QTEST_CUSTOM_MAIN(int argc, char** argv) {
    GuardedApplication app(argc, argv);
    GuiGuardTest test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "gui_guard_test.moc"
