// QtTest: the Theory tab's lenses have the window's width at 1280×800 (and at 192 dpi:
// app.theory_room_test_2x) with a model open. The lenses read no model's run, so the docks of
// one (Translation, Model) give them the room: no lens's plots scroll sideways, a tiny Marian's
// or a tiny GPT-2's open. GPL-3.0-or-later.
#include <QScrollBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/model_controller.hpp"
#include "marian_folder.hpp"
#include "tiny_folders.hpp"
#include "views/scroll_frame.hpp"

namespace {

/// The lenses whose frames scroll sideways in W, one line each.
QStringList sideways(MainWindow& w) {
    auto* theory = w.findChild<QTabWidget*>(QStringLiteral("theoryTabs"));
    if (!theory) return {QStringLiteral("no Theory tab")};
    w.tabs()->setCurrentWidget(theory);
    QStringList out;
    for (int i = 0; i < theory->count(); ++i) {
        theory->setCurrentIndex(i);
        test_support::settleAll(w.computeService());
        for (ScrollFrame* frame : theory->widget(i)->findChildren<ScrollFrame*>())
            if (frame->isVisible() && frame->horizontalScrollBar()->isVisible())
                out << QStringLiteral("%1: %2 scrolls %3 px")
                           .arg(theory->tabText(i), frame->objectName())
                           .arg(frame->horizontalScrollBar()->maximum());
    }
    return out;
}

}  // namespace

class TheoryRoomTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void besideAMarian() {
        QTemporaryDir dir;
        const QString written = test_support::writeMarianFolder(dir.path());
        QVERIFY2(written.isEmpty(), qPrintable(written));
        roomBeside(dir.path());
    }

    void besideAGpt2() {
        QTemporaryDir dir;
        QCOMPARE(test_support::writeTinyGpt2(dir.path()), QString());
        roomBeside(dir.path());
    }

  private:
    /// At 1280×800 with the model folder DIR open, no lens scrolls sideways.
    void roomBeside(const QString& dir) {
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        QVERIFY2(models->openModel(dir), qPrintable(models->lastError()));
        test_support::settleAll(w.computeService());
        QCOMPARE(w.size(), QSize(1280, 800));
        const QStringList faults = sideways(w);
        QVERIFY2(faults.isEmpty(), qPrintable(faults.join(QStringLiteral("; "))));
        w.scene()->undoStack()->setClean();
    }
};

QTEST_MAIN(TheoryRoomTest)
#include "theory_room_test.moc"
