// QtTest: what the window says about loaded attention. The sentence box shows the file's own
// tokens, read-only (typing could not change loaded attention), and becomes editable again on
// undo; the controls show the file's d_k and head count, not the computed scene's; the Loaded
// data dock has a head selector beside the layer selector, tied to the scene's selection.
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QUndoStack>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/data_dock.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "views/model_grid.hpp"
#include "views/model_grid_canvas.hpp"
#include "widgets/controls_dock.hpp"
#include "widgets/token_editor.hpp"

namespace {
using test_support::fixture;
}  // namespace

class IoLoadedDataTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        // attachDataIo offers recovery of an autosave: use a path no other test writes.
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeLoadedDataTest"));
    }

    void sentenceShowsTheFileTokensReadOnly() {
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        QPlainTextEdit* edit = w.tokenEditor()->editor();
        const QString typed = edit->toPlainText();
        QVERIFY(!edit->isReadOnly());
        QVERIFY(files.openFile(fixture("gpt2_small_ex0.npz")));
        QVERIFY(edit->isReadOnly());
        QCOMPARE(edit->toPlainText(), QStringLiteral("Data visualization em powers users to"));
        QVERIFY2(edit->toolTip().contains(QStringLiteral("gpt2_small_ex0.npz")),
                 qPrintable(edit->toolTip()));
        auto* preview = w.tokenEditor()->findChild<QLabel*>();
        QVERIFY(preview);
        QVERIFY2(preview->toolTip().startsWith(
                     QStringLiteral("Read-only — 6 token(s) from gpt2_small_ex0.npz")),
                 qPrintable(preview->toolTip()));
        w.scene()->undoStack()->undo();  // back to the computed scene and its sentence
        QVERIFY(!edit->isReadOnly());
        QCOMPARE(edit->toPlainText(), typed);
    }

    void controlsShowTheFileDkAndHeads() {
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        QVERIFY(files.openFile(fixture("gpt2_small_ex0.npz")));
        QVERIFY2(w.controlsDock()->scaleBox()->text().contains(QStringLiteral("d_k = 64")),
                 qPrintable(w.controlsDock()->scaleBox()->text()));
        QCOMPARE(w.controlsDock()->headsBox()->currentText(), QStringLiteral("12"));
    }

    void dataDockSelectsTheHead() {
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        fileio::DataDock dock(w.scene(), &w);
        QVERIFY(files.openFile(fixture("gpt2_small_ex0.npz")));
        test_support::settle(w.computeService());
        QCOMPARE(dock.headBox()->maximum(), 12);
        QVERIFY(dock.headBox()->isEnabled());
        dock.headBox()->setValue(5);  // shown from 1
        QCOMPARE(w.scene()->selection().head, 4);
        Selection s = w.scene()->selection();
        s.head = 10;
        w.scene()->setSelection(s);  // e.g. a click in the heatmap grid
        QCOMPARE(dock.headBox()->value(), 11);
    }

    void modelViewClickMarksDoubleClickOpens() {
        // Twelve layers: a real click on a thumbnail of the Model tab makes that layer the
        // scene's and selects that head, staying on the Model tab; a double-click opens it:
        // the Heads tab, that head focused. Hovering names the head above the grid, with no
        // tooltip over its neighbours.
        MainWindow w;
        fileio::attachDataIo(&w, {fixture("gpt2_small_ex0.npz")});
        test_support::showWindow(w);
        QTRY_VERIFY(w.scene()->spec().data);
        auto* model = w.findChild<ModelGrid*>(QStringLiteral("modelGrid"));
        QVERIFY(model);
        QWidget* modelTab = model->parentWidget();  // the Model tab: grid above census
        w.tabs()->setCurrentWidget(modelTab);
        QTRY_COMPARE(model->thumbnails().layers, 12);
        QCOMPARE(model->thumbnails().heads, 12);
        // Where a thumbnail sits is read once the window has settled: the census and the
        // thumbnails still arriving move the grid until then.
        test_support::settleAll(w.computeService());
        auto* canvas = model->findChild<ModelGridCanvas*>();
        QVERIFY(canvas);
        const QPoint at = canvas->thumbRect(7, 5).center().toPoint();
        QTest::mouseMove(canvas, at);
        auto* note = model->findChild<QLabel*>(QStringLiteral("modelNote"));
        QTRY_VERIFY2(note->text().startsWith(QStringLiteral("Layer 8, head 6: mean entropy")),
                     qPrintable(note->text()));
        QCOMPARE(canvas->toolTip(), QString());
        QTest::mouseClick(canvas, Qt::LeftButton, {}, at);
        QCOMPARE(w.scene()->spec().layer, attn::Index(7));
        QCOMPARE(w.scene()->selection().head, 5);
        QCOMPARE(w.tabs()->currentWidget(), modelTab);
        // The neighbour, clicked right after: nothing swallows the click.
        QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->thumbRect(7, 6).center().toPoint());
        QCOMPARE(w.scene()->selection().head, 6);
        QTest::mouseDClick(canvas, Qt::LeftButton, {}, at);
        QCOMPARE(w.scene()->selection().head, 5);
        QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(w.heatmapGrid()));
        QCOMPARE(w.heatmapGrid()->focusedHead(), 5);
        test_support::settle(w.computeService());
        QCOMPARE(w.result()->layer, attn::Index(7));
    }
};

QTEST_MAIN(IoLoadedDataTest)
#include "io_loaded_data_test.moc"
