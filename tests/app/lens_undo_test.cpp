// AttnScope — a lens's settings are view state edited through the undo stack (issue #23 item
// 2): a change in a lens's controls is one undo step, Ctrl+Z restores the previous value and the
// lens follows; a spin box's steps and a burst of typing in a lens's text field each merge into
// one step (the first Ctrl+Z takes back the typing only, as in the sentence box, issue #26 item
// 14); a lens following the scene or the selection pushes nothing. Real widgets, real keys.
// GPL-3.0-or-later.
#include <QComboBox>
#include <QLineEdit>
#include <QSlider>
#include <QSpinBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>
#include <QUndoStack>

#include "app_test_support.hpp"
#include "lenses/lens_panel.hpp"
#include "model/scene.hpp"
#include "model/view_state.hpp"
#include "widgets/tab_strip.hpp"

using test_support::clickTab;
using test_support::pageOf;

class LensUndoTest : public QObject {
    Q_OBJECT
    std::unique_ptr<MainWindow> w_;

    QUndoStack* undo() const { return w_->scene()->undoStack(); }
    ViewState* state() const { return ViewState::of(w_->scene()); }
    /// Shows lens `name` on the Theory tab with clicks, as a user does.
    LensPanel* showLens(const QString& name) {
        QTabBar* strip = w_->findChild<TabStrip*>()->bar();
        clickTab(strip, pageOf(w_->tabs(), QStringLiteral("theory")));
        auto* theory = w_->findChild<QTabWidget*>(QStringLiteral("theoryTabs"));
        clickTab(theory->tabBar(), pageOf(theory, name));
        auto* lens = qobject_cast<LensPanel*>(theory->currentWidget());
        if (lens) QTest::qWait(0);  // its queued refresh
        return lens;
    }
    int setting(const QString& lens, const char* key) const {
        return state()->lensSettings(lens).value(QLatin1StringView(key)).toInt();
    }

  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }
    void init() {
        w_ = std::make_unique<MainWindow>();
        test_support::showWindow(*w_);
        test_support::settleAll(w_->computeService());
        undo()->clear();
    }
    void cleanup() {
        undo()->setClean();
        w_.reset();
    }

    void aSpinBoxChangeIsOneUndoStep() {
        LensPanel* cost = showLens(QStringLiteral("cost"));
        QVERIFY(cost);
        auto* kv = cost->findChild<QSpinBox*>(QStringLiteral("kv_heads"));
        auto* layers = cost->findChild<QSpinBox*>(QStringLiteral("layers"));
        QCOMPARE(kv->value(), 4);
        kv->setFocus(Qt::OtherFocusReason);
        // Three steps up in a row: one undo step, as a drag of a scene control.
        QTest::keyClick(kv, Qt::Key_Up);
        QTest::keyClick(kv, Qt::Key_Up);
        QTest::keyClick(kv, Qt::Key_Up);
        QCOMPARE(kv->value(), 7);
        QCOMPARE(setting(QStringLiteral("cost"), "kv_heads"), 7);
        QCOMPARE(undo()->count(), 1);
        // Another control is another step.
        layers->setFocus(Qt::OtherFocusReason);
        QTest::keyClick(layers, Qt::Key_Down);
        QCOMPARE(layers->value(), 11);
        QCOMPARE(undo()->count(), 2);
        const int computed = cost->computations();
        // Ctrl+Z from the focused spin box: the layers go back, and the lens recomputes.
        QTest::keyClick(layers, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(layers->value(), 12);
        QCOMPARE(setting(QStringLiteral("cost"), "layers"), 12);
        QCOMPARE(kv->value(), 7);
        QTest::qWait(0);
        QVERIFY(cost->computations() > computed);
        // Again: the three steps of kv_heads at once.
        QTest::keyClick(layers, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(kv->value(), 4);
        QCOMPARE(setting(QStringLiteral("cost"), "kv_heads"), 4);
        QVERIFY(!undo()->canUndo());
        // Redo brings them back in order.
        QTest::keyClick(layers, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(kv->value(), 7);
        QTest::keyClick(layers, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(layers->value(), 11);
        QCOMPARE(cost->settings(), state()->lensSettings(QStringLiteral("cost")));
    }

    void aSliderAndAListAreUndoable() {
        LensPanel* lowRank = showLens(QStringLiteral("low-rank"));
        QVERIFY(lowRank);
        auto* rank = lowRank->findChild<QSlider*>(QStringLiteral("rank"));
        auto* matrix = lowRank->findChild<QComboBox*>(QStringLiteral("matrix"));
        const int r0 = rank->value(), m0 = matrix->currentIndex();
        rank->setFocus(Qt::OtherFocusReason);
        QTest::keyClick(rank, Qt::Key_Right);
        QTest::keyClick(rank, Qt::Key_Right);
        QCOMPARE(rank->value(), r0 + 2);
        QCOMPARE(undo()->count(), 1);  // a drag with the keys: one step
        matrix->setFocus(Qt::OtherFocusReason);
        QTest::keyClick(matrix, Qt::Key_Down);
        QCOMPARE(matrix->currentIndex(), m0 + 1);
        QCOMPARE(undo()->count(), 2);
        QCOMPARE(setting(QStringLiteral("low-rank"), "matrix"), m0 + 1);
        QTest::keyClick(rank, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(matrix->currentIndex(), m0);
        QCOMPARE(rank->value(), r0 + 2);
        QTest::keyClick(rank, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(rank->value(), r0);
        QCOMPARE(setting(QStringLiteral("low-rank"), "rank"), r0);
    }

    /// Typing in a lens's text field is one step; the first Ctrl+Z takes back the typing
    /// only, the next one the change before it.
    void typingIsOneStepAndCtrlZTakesItBackFirst() {
        LensPanel* align = showLens(QStringLiteral("alignment"));
        QVERIFY(align);
        auto* head = align->findChild<QComboBox*>(QStringLiteral("head"));
        auto* target = align->findChild<QLineEdit*>(QStringLiteral("alignmentTarget"));
        // A change before the typing.
        head->setFocus(Qt::OtherFocusReason);
        QTest::keyClick(head, Qt::Key_Down);
        QCOMPARE(head->currentIndex(), 1);
        QCOMPARE(undo()->count(), 1);
        const QString before = target->text();
        target->setFocus(Qt::OtherFocusReason);
        QTest::keyClick(target, Qt::Key_End);
        QTest::keyClicks(target, QStringLiteral(" encore"));
        QCOMPARE(target->text(), before + QStringLiteral(" encore"));
        // Seven keys, one step; the view state has what is typed.
        QCOMPARE(undo()->count(), 2);
        QCOMPARE(state()
                     ->lensSettings(QStringLiteral("alignment"))
                     .value(QStringLiteral("alignmentTarget"))
                     .toString(),
                 before + QStringLiteral(" encore"));
        QTest::keyClick(target, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(target->text(), before);  // the typing only
        QCOMPARE(head->currentIndex(), 1);
        QCOMPARE(state()
                     ->lensSettings(QStringLiteral("alignment"))
                     .value(QStringLiteral("alignmentTarget"))
                     .toString(),
                 before);
        QTest::keyClick(target, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(head->currentIndex(), 0);  // then the change before it
        QCOMPARE(target->text(), before);
        QTest::keyClick(target, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QTest::keyClick(target, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(target->text(), before + QStringLiteral(" encore"));
        QCOMPARE(head->currentIndex(), 1);
    }

    /// A lens that follows the selection or the scene records it, but it is no edit: the undo
    /// stack has the selection's and the scene's own steps only.
    void followingTheSceneIsNoLensEdit() {
        LensPanel* lookup = showLens(QStringLiteral("lookup"));
        QVERIFY(lookup);
        auto* query = lookup->findChild<QSpinBox*>(QStringLiteral("query"));
        Selection s = w_->scene()->selection();
        s.query = 3;
        w_->scene()->setSelection(s);
        // The fourth query: shown from 1 as the Heads tab's hover line counts it, kept from 0.
        QCOMPARE(query->value(), 3);
        QCOMPARE(query->text(), QStringLiteral("4"));
        QCOMPARE(setting(QStringLiteral("lookup"), "query"), 3);
        QCOMPARE(undo()->count(), 0);
        attn::SceneSpec spec = w_->scene()->spec();
        spec.temperature = 0.5f;
        w_->scene()->setSpec(spec, QStringLiteral("edit"));
        test_support::settleAll(w_->computeService());
        QTest::qWait(0);
        QCOMPARE(undo()->count(), 1);
        undo()->undo();
        test_support::settleAll(w_->computeService());
        QTest::qWait(0);
        QVERIFY(undo()->canRedo());  // nothing pushed while the scene's undo ran
        QCOMPARE(undo()->count(), 1);
    }
};

QTEST_MAIN(LensUndoTest)
#include "lens_undo_test.moc"
