// AttnScope — what a user looks at is in the view state and travels in a session (issue #23
// item 2): a head's zoom (the scroll wheel), the Theory tab's open lens, the Views tab's options
// and open view, and the Playground's points (a drag), set with real events, saved, and equal
// after reopening in a new window. GPL-3.0-or-later.
#include <QCheckBox>
#include <QComboBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

#include "app_test_support.hpp"
#include "attn/scene/spec_edit.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "lenses/lens_panel.hpp"
#include "model/playground_model.hpp"
#include "model/view_state.hpp"
#include "playground/playground_widget.hpp"
#include "playground/point_plane.hpp"
#include "views/head_heatmap.hpp"
#include "views/views_tab.hpp"
#include "widgets/tab_strip.hpp"

namespace {

/// Ctrl+wheel NOTCHES over W at AT: a head's zoom (the plain wheel scrolls the heads).
void wheel(QWidget* w, const QPoint& at, int notches) {
    QWheelEvent e(QPointF(at), QPointF(w->mapToGlobal(at)), QPoint(), QPoint(0, 120 * notches),
                  Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(w, &e);
}

using test_support::clickTab;
using test_support::pageOf;

struct Window {
    std::unique_ptr<MainWindow> w = std::make_unique<MainWindow>();
    fileio::FileController* files = fileio::attachDataIo(w.get(), {});
    Window() {
        files->setQuiet(true);
        test_support::showWindow(*w);
        test_support::settleAll(w->computeService());
    }
    ~Window() { w->scene()->undoStack()->setClean(); }
    ViewState* state() const { return ViewState::of(w->scene()); }
    QTabBar* strip() const { return w->findChild<TabStrip*>()->bar(); }
    QTabWidget* theory() const { return w->findChild<QTabWidget*>(QStringLiteral("theoryTabs")); }
    PlaygroundWidget* playground() const { return w->findChild<PlaygroundWidget*>(); }
};

}  // namespace

class ViewStateRestoreTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void lookingIsSavedAndRestored() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("look.attnscope"));
        HeatmapViewport zoom;
        attn::PlaygroundState points;
        int lensPage = -1;
        {
            Window a;
            // Zoom head 2 with the wheel: two notches in, about its centre.
            HeadHeatmap* head = a.w->heatmapGrid()->head(1);
            const QRect cells = head->axisRect()->rect();
            wheel(head, cells.center(), 2);
            zoom = head->region();
            QVERIFY(!zoom.whole());
            QVERIFY(zoom.rows < zoom.n && zoom.cols < zoom.m);
            QVERIFY(a.state()->zoom(1) == zoom);  // the state holds it, not only the grid
            QVERIFY(a.state()->zoom(0).n == 0);   // head 1 untouched

            // The Playground: drag key 1 by (30, -20) pixels.
            clickTab(a.strip(), pageOf(a.w->tabs(), QStringLiteral("playground")));
            PlaygroundWidget* pg = a.playground();
            QVERIFY(pg->isVisible());
            QVERIFY(pg->model() == a.state()->playground());  // the tab is a view of the state
            pg->replotNow();
            PointPlane* plane = pg->queryKeyPlane();
            const attn::PlaygroundState before = pg->state();
            const QPoint from = plane->pixelOf({PointRef::Kind::Key, 1}).toPoint();
            QTest::mousePress(plane, Qt::LeftButton, {}, from);
            QTest::mouseMove(plane, from + QPoint(15, -10));
            QTest::mouseMove(plane, from + QPoint(30, -20));
            QTest::mouseRelease(plane, Qt::LeftButton, {}, from + QPoint(30, -20));
            points = a.state()->playground()->state();
            QVERIFY(!(points == before));
            QVERIFY(points.keys[1] != before.keys[1]);

            // The Views tab: mean of the heads, reversed, the Text view.
            clickTab(a.strip(), pageOf(a.w->tabs(), QStringLiteral("views")));
            ViewsTab* views = a.w->viewsTab();
            QComboBox* reduce = views->reduceBox();
            reduce->setFocus(Qt::OtherFocusReason);
            QTest::keyClick(reduce, Qt::Key_Down);  // Selected head → Mean of heads
            QTest::mouseClick(views->reverseBox(), Qt::LeftButton, {},
                              views->reverseBox()->rect().center());
            clickTab(views->tabs()->tabBar(), pageOf(views->tabs(), QStringLiteral("text")));
            QCOMPARE(a.state()->viewOptions().reduce, attn::HeadReduce::Mean);
            QVERIFY(a.state()->viewOptions().reverse);
            QCOMPARE(a.state()->innerTab(QStringLiteral("views")), QStringLiteral("text"));

            // The Theory tab, on its cost lens.
            clickTab(a.strip(), pageOf(a.w->tabs(), QStringLiteral("theory")));
            lensPage = pageOf(a.theory(), QStringLiteral("cost"));
            QVERIFY(lensPage > 0);
            clickTab(a.theory()->tabBar(), lensPage);
            QCOMPARE(a.state()->innerTab(QStringLiteral("theory")), QStringLiteral("cost"));
            QString error;
            QVERIFY2(a.files->saveTo(path, &error), qPrintable(error));
        }
        Window b;
        QCOMPARE(b.theory()->currentIndex(), 0);  // a fresh window: the first lens
        QVERIFY(b.state()->zooms().isEmpty());
        QVERIFY2(b.files->openFile(path), qPrintable(b.files->lastError()));
        test_support::settleAll(b.w->computeService());
        // Every part as it was: in the state and in the widgets.
        QCOMPARE(MainWindow::viewKey(b.w->tabs()->currentWidget()), QStringLiteral("theory"));
        QCOMPARE(b.theory()->currentIndex(), lensPage);
        QCOMPARE(b.state()->innerTab(QStringLiteral("theory")), QStringLiteral("cost"));
        const HeatmapViewport shown = b.w->heatmapGrid()->head(1)->region();
        QCOMPARE(shown.row, zoom.row);
        QCOMPARE(shown.rows, zoom.rows);
        QCOMPARE(shown.col, zoom.col);
        QCOMPARE(shown.cols, zoom.cols);
        QVERIFY(b.state()->zoom(1) == zoom);
        QVERIFY(b.w->heatmapGrid()->head(0)->region().whole());
        ViewsTab* views = b.w->viewsTab();
        QCOMPARE(views->options().reduce, attn::HeadReduce::Mean);
        QVERIFY(views->options().reverse);
        QCOMPARE(views->reduceBox()->currentData().toInt(), int(attn::HeadReduce::Mean));
        QVERIFY(views->reverseBox()->isChecked());
        QCOMPARE(MainWindow::viewKey(views->tabs()->currentWidget()), QStringLiteral("text"));
        const attn::PlaygroundState& restored = b.playground()->state();
        QCOMPARE(restored.keys.size(), points.keys.size());
        for (std::size_t j = 0; j < points.keys.size(); ++j) {
            QCOMPARE(restored.keys[j].x(), points.keys[j].x());
            QCOMPARE(restored.keys[j].y(), points.keys[j].y());
        }
        QVERIFY(restored == points);
    }

    /// A zoom the next result cannot show (another sentence length) is dropped, not kept stale.
    void aZoomOfAnotherShapeIsDropped() {
        Window a;
        HeadHeatmap* head = a.w->heatmapGrid()->head(0);
        wheel(head, head->axisRect()->rect().center(), 3);
        QVERIFY(!a.state()->zooms().isEmpty());
        const attn::SceneSpec s = attn::with_text(a.w->scene()->spec(), "A much shorter one .");
        a.w->scene()->setSpec(s, QStringLiteral("edit"));
        test_support::settleAll(a.w->computeService());
        QVERIFY(a.state()->zooms().isEmpty());
        QVERIFY(a.w->heatmapGrid()->head(0)->region().whole());
    }
};

QTEST_MAIN(ViewStateRestoreTest)
#include "view_state_restore_test.moc"
