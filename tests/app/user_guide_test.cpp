// QtTest: Help ▸ User Guide opens the user docs shipped inside the program (issue 26, item 15):
// the getting-started page first, another one on a mouse click in the list, its picture loaded
// from the resources (no source tree needed).
#include <QAction>
#include <QListWidget>
#include <QTextBrowser>
#include <QtTest>

#include "app_test_support.hpp"
#include "widgets/user_guide.hpp"

class UserGuideTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void helpOpensTheShippedDocs() {
        MainWindow w;
        test_support::showWindow(w);
        QAction* action = w.findChild<QAction*>(QStringLiteral("actionUserGuide"));
        QVERIFY(action);
        action->trigger();
        auto* guide = w.findChild<UserGuide*>(QStringLiteral("userGuide"));
        QVERIFY(guide);
        QVERIFY(QTest::qWaitForWindowExposed(guide));
        QVERIFY2(guide->browser()->toPlainText().startsWith(QStringLiteral("Getting started")),
                 qPrintable(guide->browser()->toPlainText().left(80)));
        QCOMPARE(guide->list()->count(), 8);
        QListWidget* list = guide->list();
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                          list->visualItemRect(list->item(5)).center());
        QVERIFY2(guide->browser()->toPlainText().startsWith(QStringLiteral("Words, not pieces")),
                 qPrintable(guide->browser()->toPlainText().left(80)));
        const QVariant picture = guide->browser()->document()->resource(
            QTextDocument::ImageResource, QUrl(QStringLiteral("screenshots/view-lines-words.png")));
        QVERIFY(picture.isValid() && !picture.value<QImage>().isNull());
        guide->close();
    }
};

QTEST_MAIN(UserGuideTest)
#include "user_guide_test.moc"
