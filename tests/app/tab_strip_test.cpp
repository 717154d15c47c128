// QtTest: the window's tab bar stays put (issue 26, item 9). Switching tabs with mouse clicks
// on the bar hides and shows the docks (the Playground hides them all, Theory keeps only the
// sentence): the bar must not move under the pointer, on any tab, at 1280×800.
#include <QApplication>
#include <QDir>
#include <QLayout>
#include <QTabBar>
#include <QTabWidget>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"

namespace {

/// The bar a user clicks to switch the window's tabs: visible, holding every tab.
QTabBar* windowTabBar(MainWindow& w) {
    for (QTabBar* bar : w.findChildren<QTabBar*>())
        if (bar->isVisible() && bar->count() == w.tabs()->count() &&
            bar->tabText(0) == QStringLiteral("Heads"))
            return bar;
    return nullptr;
}

}  // namespace

class TabStripTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeTabStripTest"));
        QDir(fileio::FileController::autosaveFolder()).removeRecursively();
    }

    void tabBarStaysPutOnEveryTab() {
        MainWindow w;
        fileio::attachDataIo(&w, {});  // the Model tab too
        test_support::showWindow(w);
        QTabBar* bar = windowTabBar(w);
        QVERIFY(bar);
        QCOMPARE(bar->count(), 7);  // Heads, Playground, Theory, Views, Model, Interventions,
                                    // Influence
        const QPoint home = bar->mapTo(&w, QPoint(0, 0));
        QList<QRect> tabs;
        for (int i = 0; i < bar->count(); ++i)
            tabs << bar->tabRect(i);
        for (int i : {1, 2, 3, 4, 0, 2, 1}) {
            QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(i).center());
            QCOMPARE(w.tabs()->currentIndex(), i);
            QCoreApplication::processEvents();
            w.layout()->activate();
            QVERIFY2(bar->isVisible(), qPrintable(bar->tabText(i)));
            QCOMPARE(bar->mapTo(&w, QPoint(0, 0)), home);
            for (int t = 0; t < bar->count(); ++t)
                QCOMPARE(bar->tabRect(t), tabs.at(t));
        }
        // Switched from elsewhere (Ctrl+Tab, a session, the Model thumbnails), the bar follows.
        w.tabs()->setCurrentIndex(3);
        QCOMPARE(bar->currentIndex(), 3);
    }
};

QTEST_MAIN(TabStripTest)
#include "tab_strip_test.moc"
