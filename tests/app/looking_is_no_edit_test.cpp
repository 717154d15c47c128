// QtTest: issue 26, items 13 and 15 (smaller). Moving between the layers of an opened file (the
// Loaded data dock's layer box, stepped with the keyboard) changes what is looked at, not the
// document: the window stays unmodified, yet the step is undoable. A cross-attention head's
// title has no "dist" (a distance between positions of two different sentences means nothing);
// a self-attention head keeps it. Tooltips give both numberings (window from 1, files from 0).
#include <QSpinBox>
#include <QUndoStack>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/data_dock.hpp"
#include "io/file_controller.hpp"

class LookingIsNoEditTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void anotherLayerLeavesTheDocumentSaved() {
        MainWindow w;
        fileio::FileController files(&w);
        files.setQuiet(true);
        auto* data = new fileio::DataDock(w.scene(), &w);
        w.addDockWidget(Qt::RightDockWidgetArea, data);
        test_support::showWindow(w);
        QVERIFY(files.openFile(test_support::fixture("bertviz_distilbert_headview.json")));
        QVERIFY(!w.isWindowModified());
        const int steps = w.scene()->undoStack()->count();
        QSpinBox* layer = data->layerBox();
        layer->setFocus(Qt::OtherFocusReason);
        QTest::keyClick(layer, Qt::Key_Up);
        QTest::keyClick(layer, Qt::Key_Up);
        QCOMPARE(w.scene()->spec().layer, attn::Index(2));
        QVERIFY(!w.isWindowModified());
        QVERIFY(w.scene()->undoStack()->isClean());
        QCOMPARE(w.scene()->undoStack()->count(), steps + 2);
        QCOMPARE(w.scene()->undoStack()->text(steps + 1), QStringLiteral("Show layer 3"));
        // An edit still marks it; undoing it and the layer steps goes back, as before.
        attn::SceneSpec s = w.scene()->spec();
        s.temperature = 2;
        w.scene()->setSpec(s, QStringLiteral("tau"));
        QVERIFY(w.isWindowModified());
        w.scene()->undoStack()->undo();
        QVERIFY(!w.isWindowModified());
        w.scene()->undoStack()->undo();
        QCOMPARE(w.scene()->spec().layer, attn::Index(1));
    }

    // Item 13: the window counts from 1, files and the command line from 0; the tooltips of
    // a head's title and of the layer and head selectors say both.
    void tooltipsGiveBothNumberings() {
        MainWindow w;
        auto* data = new fileio::DataDock(w.scene(), &w);
        test_support::showWindow(w);
        HeadHeatmap* h = w.heatmapGrid()->head(2);
        const QString tip = h->toolTipAt(QPoint(h->width() / 2, 6));
        QVERIFY2(tip.contains(QStringLiteral("Head 3")) &&
                     tip.contains(QStringLiteral("head 2 in exported numbers")),
                 qPrintable(tip));
        for (QWidget* box :
             {static_cast<QWidget*>(data->layerBox()), static_cast<QWidget*>(data->headBox())})
            QVERIFY2(box->toolTip().contains(QStringLiteral("count from 0")),
                     qPrintable(box->toolTip()));
    }

    void crossAttentionTitlesHaveNoDistance() {
        MainWindow w;
        test_support::showWindow(w);
        QVERIFY(w.heatmapGrid()->head(0)->titleText().contains(QStringLiteral("dist")));
        attn::SceneSpec s = w.scene()->spec();
        s.cross_text = "Das Abkommen wurde im August 1992 unterzeichnet .";
        w.scene()->setSpec(s, QStringLiteral("cross"));
        test_support::settle(w.computeService());
        for (int h = 0; h < w.heatmapGrid()->headCount(); ++h) {
            const QString title = w.heatmapGrid()->head(h)->titleText();
            QVERIFY2(title.contains(QStringLiteral("max")), qPrintable(title));
            QVERIFY2(!title.contains(QStringLiteral("dist")), qPrintable(title));
        }
    }
};

QTEST_MAIN(LookingIsNoEditTest)
#include "looking_is_no_edit_test.moc"
