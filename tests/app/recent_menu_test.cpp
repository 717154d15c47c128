// QtTest: File ▸ Open Recent tells its entries apart and drops files that are gone (issue 26,
// item 10). Two files of one name show the folders that differ; a file deleted since leaves
// the menu the next time it opens; a click on an entry (a real mouse click in the shown menu)
// asks for that file.
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "app_test_support.hpp"
#include "widgets/recent_labels.hpp"

namespace {

QStringList texts(QMenu* menu) {
    QStringList out;
    for (QAction* a : menu->actions())
        out << a->text();
    return out;
}

}  // namespace

class RecentMenuTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void sameNamesShowTheFoldersThatDiffer() {
        QCOMPARE(recentFileLabels({QStringLiteral("/data/runs/a/mat.json"),
                                   QStringLiteral("/data/runs/b/mat.json"),
                                   QStringLiteral("/home/x/cat.json")}),
                 (QStringList{QStringLiteral("mat.json — a"), QStringLiteral("mat.json — b"),
                              QStringLiteral("cat.json")}));
        // The same last folder: one more is needed, and only for the two that collide.
        QCOMPARE(
            recentFileLabels(
                {QStringLiteral("/x/run/mat.json"), QStringLiteral("/y/run/mat.json")}),
            (QStringList{QStringLiteral("mat.json — x/run"), QStringLiteral("mat.json — y/run")}));
        QCOMPARE(recentFileLabels({QStringLiteral("/t/R&D.json")}),
                 QStringList{QStringLiteral("R&&D.json")});
    }

    void goneFilesLeaveTheMenuAndEntriesOpenTheirFile() {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("runs/a")));
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("runs/b")));
        const QString a = dir.filePath(QStringLiteral("runs/a/mat.json"));
        const QString b = dir.filePath(QStringLiteral("runs/b/mat.json"));
        for (const QString& path : {a, b})
            QVERIFY(QFile::copy(test_support::fixture("bertviz_distilbert_headview.json"), path));
        MainWindow w;
        test_support::showWindow(w);
        w.addRecentFile(a);
        w.addRecentFile(b);
        QMenu* recent = w.recentMenu();
        recent->popup(w.mapToGlobal(QPoint(40, 40)));
        QVERIFY(QTest::qWaitForWindowExposed(recent));
        QCOMPARE(texts(recent),
                 (QStringList{QStringLiteral("mat.json — b"), QStringLiteral("mat.json — a")}));
        QCOMPARE(recent->actions().at(1)->toolTip(), a);
        // A click on the second entry asks for a.
        QSignalSpy asked(&w, &MainWindow::recentFileRequested);
        QTest::mouseClick(recent, Qt::LeftButton, {},
                          recent->actionGeometry(recent->actions().at(1)).center());
        QCOMPARE(asked.size(), 1);
        QCOMPARE(asked.first().first().toString(), a);
        QTRY_VERIFY(!recent->isVisible());

        // b is deleted: the next time the menu opens it is gone, and a needs no folder.
        QVERIFY(QFile::remove(b));
        recent->popup(w.mapToGlobal(QPoint(40, 40)));
        QVERIFY(QTest::qWaitForWindowExposed(recent));
        QCOMPARE(texts(recent), QStringList{QStringLiteral("mat.json")});
        QCOMPARE(recent->actions().first()->toolTip(), a);
        recent->hide();
    }
};

QTEST_MAIN(RecentMenuTest)
#include "recent_menu_test.moc"
