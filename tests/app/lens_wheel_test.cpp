// QtTest: the mouse wheel over a lens's controls scrolls the lens's text column; it changes a
// slider (or a spin box, a list) only once the user gave it the focus. A window too small for
// the Scaling lens's column: wheel turns over its d_k slider, delivered as the window system
// delivers them, leave the slider and move the column; a click on the slider, then a turn,
// moves the slider. GPL-3.0-or-later.
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QWheelEvent>
#include <QtTest>

#include "app_test_support.hpp"
#include "lenses/lens_panel.hpp"
#include "main_window.hpp"

namespace {

/// A wheel turn of NOTCHES (negative: towards the user, scrolling down) over W's centre,
/// spontaneous as the window system's (an ignored wheel goes on to the parents).
void wheel(QWidget* w, int notches) {
    const QPoint at = w->rect().center();
    QWheelEvent e(QPointF(at), QPointF(w->mapToGlobal(at)), QPoint(), QPoint(0, 120 * notches),
                  Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QSpontaneKeyEvent::setSpontaneous(&e);
    qApp->notify(w, &e);
}

}  // namespace

class LensWheelTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeLensWheelTest"));
    }

    void wheelScrollsTheColumnNotTheSlider() {
        MainWindow w;
        w.resize(900, 520);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* theory = w.findChild<QTabWidget*>(QStringLiteral("theoryTabs"));
        auto* lens = w.findChild<LensPanel*>(QStringLiteral("lens_scaling"));
        QVERIFY(theory && lens);
        w.tabs()->setCurrentWidget(theory);
        theory->setCurrentWidget(lens);
        test_support::settleAll(w.computeService());
        auto* slider = lens->findChild<QSlider*>(QStringLiteral("d_k"));
        QVERIFY(slider && slider->isVisible());
        // The text column: the scroll area holding the slider.
        QScrollArea* column = nullptr;
        for (QWidget* p = slider->parentWidget(); p && !column; p = p->parentWidget())
            column = qobject_cast<QScrollArea*>(p);
        QVERIFY(column);
        QScrollBar* bar = column->verticalScrollBar();
        QVERIFY2(bar->maximum() > 0, "the column does not scroll at this size");
        column->ensureWidgetVisible(slider);
        QCoreApplication::processEvents();
        bar->setValue(0);
        QVERIFY(!slider->hasFocus());
        const int value = slider->value();
        const int before = bar->value();
        wheel(slider, -1);
        QCOMPARE(slider->value(), value);
        QVERIFY2(bar->value() > before,
                 qPrintable(QStringLiteral("the column stayed at %1").arg(bar->value())));
        // A spin box of the lens alike.
        auto* keys = lens->findChild<QSpinBox*>();
        QVERIFY(keys);
        const int keysValue = keys->value();
        QVERIFY(!keys->hasFocus());
        wheel(keys, 1);
        QCOMPARE(keys->value(), keysValue);
        // Clicked, the slider has the focus: the wheel is its.
        column->ensureWidgetVisible(slider);
        QTest::mouseClick(slider, Qt::LeftButton, {}, QPoint(slider->width() - 2, 2));
        QVERIFY(slider->hasFocus());
        const int clicked = slider->value();
        wheel(slider, -1);
        QVERIFY2(slider->value() != clicked, qPrintable(QString::number(slider->value())));
    }
};

QTEST_MAIN(LensWheelTest)
#include "lens_wheel_test.moc"
