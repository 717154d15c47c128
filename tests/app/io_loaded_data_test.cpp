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

    void modelViewClickOpensTheHeatmapGrid() {
        // Twelve layers: a real click on a thumbnail of the Model tab makes that layer the
        // scene's, selects and focuses that head, and shows the Heads tab.
        MainWindow w;
        fileio::attachDataIo(&w, {fixture("gpt2_small_ex0.npz")});
        test_support::showWindow(w);
        QTRY_VERIFY(w.scene()->spec().data);
        auto* model = w.findChild<ModelGrid*>(QStringLiteral("modelGrid"));
        QVERIFY(model);
        w.tabs()->setCurrentWidget(model->parentWidget());  // the Model tab: grid above census
        QTRY_COMPARE(model->thumbnails().layers, 12);
        QCOMPARE(model->thumbnails().heads, 12);
        auto* canvas = model->findChild<ModelGridCanvas*>();
        QVERIFY(canvas);
        QSignalSpy clicked(canvas, &ModelGridCanvas::cellClicked);
        // Lower right of the middle, away from the labels; step until a thumbnail is hit.
        for (double f = 0.62; clicked.isEmpty() && f < 0.9; f += 0.013)
            QTest::mouseClick(canvas, Qt::LeftButton, {},
                              QPoint(int(canvas->width() * f), int(canvas->height() * f)));
        QCOMPARE(clicked.size(), 1);
        const int layer = clicked.first().at(0).toInt(), head = clicked.first().at(1).toInt();
        QVERIFY(layer > 0 && head > 0);  // not the default layer 0, head 0
        QCOMPARE(w.scene()->spec().layer, attn::Index(layer));
        QCOMPARE(w.scene()->selection().head, head);
        QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(w.heatmapGrid()));
        QCOMPARE(w.heatmapGrid()->focusedHead(), head);
        test_support::settle(w.computeService());
        QCOMPARE(w.result()->layer, attn::Index(layer));
    }
};

QTEST_MAIN(IoLoadedDataTest)
#include "io_loaded_data_test.moc"
