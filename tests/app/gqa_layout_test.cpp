// QtTest: Qwen2.5-0.5B's 14 query heads in 2 key/value groups of 7 use the width of the Heads
// tab (at 1280×800 and 1920×1080; ctest app.gqa_layout_test_2x at 192 dpi): more than one column
// (a group of 7 wraps over several), each group's heads together under its label, no two heads
// overlapping; and over a head the wheel scrolls the column of heads while Ctrl+wheel zooms that
// head.
#include <QtTest/qtestspontaneevent.h>
#include <QLabel>
#include <QScrollBar>
#include <QWheelEvent>
#include <QtTest>
#include <set>

#include "app_test_support.hpp"
#include "views/scroll_frame.hpp"

namespace {

/// A wheel turn of NOTCHES (negative: towards the user, scrolling down) over W at AT, delivered
/// as the window system delivers it (spontaneous: an ignored wheel goes on to the parents, as
/// QTest delivers its key events).
void wheel(QWidget* w, const QPoint& at, int notches, Qt::KeyboardModifiers modifiers) {
    QWheelEvent e(QPointF(at), QPointF(w->mapToGlobal(at)), QPoint(), QPoint(0, 120 * notches),
                  Qt::NoButton, modifiers, Qt::NoScrollPhase, false);
    QSpontaneKeyEvent::setSpontaneous(&e);
    qApp->notify(w, &e);
}

attn::SceneSpec qwenHeads() {
    attn::SceneSpec s;
    s.text = "When Mary and John went to the store, John gave a drink to";
    s.heads = 14;
    s.kv_heads = 2;
    s.d_model = 14 * 8;
    return s;
}

}  // namespace

class GqaLayoutTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void groupsUseTheWidth_data() {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("columns");  // at least
        QTest::newRow("1280x800") << QSize(1280, 800) << 2;
        QTest::newRow("1920x1080") << QSize(1920, 1080) << 3;
    }

    void groupsUseTheWidth() {
        QFETCH(QSize, size);
        QFETCH(int, columns);
        MainWindow w;
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.scene()->setSpec(qwenHeads(), QStringLiteral("heads"));
        test_support::settleAll(w.computeService());
        QCoreApplication::processEvents();
        HeatmapGrid* grid = w.heatmapGrid();
        QCOMPARE(grid->headCount(), 14);
        QCOMPARE(w.result()->kv_group_count(), attn::Index(2));
        std::set<int> lefts;
        for (int h = 0; h < 14; ++h)
            lefts.insert(grid->head(h)->x());
        QVERIFY2(int(lefts.size()) >= columns,
                 qPrintable(QStringLiteral("%1 column(s) of heads in a %2 px wide grid")
                                .arg(lefts.size())
                                .arg(grid->width())));
        // No two heads overlap; each group's heads sit under its label.
        QCOMPARE(int(grid->groupLabels().size()), 2);
        for (int h = 0; h < 14; ++h) {
            const QRect a = grid->head(h)->geometry();
            for (int k = h + 1; k < 14; ++k)
                QVERIFY2(
                    !a.intersects(grid->head(k)->geometry()),
                    qPrintable(QStringLiteral("heads %1 and %2 overlap").arg(h + 1).arg(k + 1)));
            const QLabel* label = grid->groupLabels()[std::size_t(h / 7)];
            QVERIFY2(
                a.top() > label->geometry().bottom() && a.left() >= label->x() - 1 &&
                    a.right() <= label->geometry().right() + 1,
                qPrintable(QStringLiteral("head %1 is not under its group's label").arg(h + 1)));
        }
    }

    void wheelScrollsControlWheelZooms() {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.scene()->setSpec(qwenHeads(), QStringLiteral("heads"));
        test_support::settleAll(w.computeService());
        QCoreApplication::processEvents();
        HeatmapGrid* grid = w.heatmapGrid();
        auto* frame = grid->findChild<ScrollFrame*>();
        QVERIFY(frame);
        QScrollBar* bar = frame->verticalScrollBar();
        QVERIFY2(bar->maximum() > 0, "the 14 heads do not scroll at 1280×800");
        HeadHeatmap* head = grid->head(0);
        const QPoint centre = head->axisRect()->rect().center();
        QVERIFY(head->region().whole());
        // The wheel, down two notches over head 1: the column scrolls, the head is not zoomed.
        wheel(head, centre, -2, Qt::NoModifier);
        QCoreApplication::processEvents();
        QVERIFY2(bar->value() > 0, "the wheel over a head did not scroll the heads");
        QVERIFY(head->region().whole());
        // Ctrl+wheel, in two notches over head 2: that head zooms, the column stays.
        const int scrolled = bar->value();
        HeadHeatmap* second = grid->head(1);
        QVERIFY(second->isVisible());
        wheel(second, second->axisRect()->rect().center(), 2, Qt::ControlModifier);
        QCoreApplication::processEvents();
        QCOMPARE(bar->value(), scrolled);
        QVERIFY(!second->region().whole());
        QVERIFY(second->region().rows < attn::Index(14));
    }
};

QTEST_MAIN(GqaLayoutTest)
#include "gqa_layout_test.moc"
