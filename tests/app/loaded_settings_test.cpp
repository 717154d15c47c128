// QtTest: loaded data brings its own settings (issue 26, item 2). What the synthetic scene set
// (an RBF score, scaling off, a causal mask, τ = 0.5) does not follow real attention into the
// window: a bidirectional model's weights open unmasked at τ = 1 with every control that cannot
// apply greyed *and* showing a dash, never the synthetic value; GPT-2's raw scores open scaled,
// causal and with a usable scale box; the synthetic model's own rows are titled so and hidden
// while data is shown; the title names the file. Controls are driven with real events.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QUndoStack>
#include <QtTest>
#include <memory>

#include "app_test_support.hpp"
#include "attn/scene/scene_controls.hpp"
#include "io/file_controller.hpp"
#include "widgets/controls_dock.hpp"

namespace {

QString dash() {
    return QStringLiteral("—");
}

/// Picks entry `index` of a combo box as a user does with the arrow keys.
void choose(QComboBox* combo, int index) {
    combo->setFocus(Qt::OtherFocusReason);
    const int steps = index - combo->currentIndex();
    for (int i = 0; i < std::abs(steps); ++i)
        QTest::keyClick(combo, steps > 0 ? Qt::Key_Down : Qt::Key_Up);
    QCOMPARE(combo->currentIndex(), index);
}

void type(QAbstractSpinBox* box, const QString& text) {
    box->setFocus(Qt::OtherFocusReason);
    QTest::keyClick(box, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(box, text);
    QTest::keyClick(box, Qt::Key_Return);
}

}  // namespace

class LoadedSettingsTest : public QObject {
    Q_OBJECT
    std::unique_ptr<MainWindow> w_;
    fileio::FileController* files_ = nullptr;
    ControlsDock* c_ = nullptr;

    /// The synthetic scene the audit left behind: RBF, unscaled, causal, τ = 0.5, window 3.
    void setSyntheticControls() {
        choose(c_->maskBox(), c_->maskBox()->findData(int(attn::MaskKind::SlidingWindow)));
        type(c_->windowBox(), QStringLiteral("3"));
        choose(c_->maskBox(), c_->maskBox()->findData(int(attn::MaskKind::Causal)));
        choose(c_->scoreBox(), 0);                     // plain dot product: scaling off
        QTest::keyClick(c_->scoreBox(), Qt::Key_End);  // RBF, the last (skipping the scaled)
        QCOMPARE(c_->scoreBox()->currentIndex(), 4);
        type(c_->temperatureBox(), QStringLiteral("0.5"));
        const attn::SceneSpec& s = w_->scene()->spec();
        QCOMPARE(s.score, attn::ScoreKind::Rbf);
        QVERIFY(!s.scale);
        QCOMPARE(s.mask.kind, attn::MaskKind::Causal);
        QCOMPARE(s.temperature, 0.5f);
    }

  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void init() {
        w_ = std::make_unique<MainWindow>();
        files_ = new fileio::FileController(w_.get());
        files_->setQuiet(true);
        c_ = w_->controlsDock();
        test_support::showWindow(*w_);
        QApplication::setActiveWindow(w_.get());
        QVERIFY(QTest::qWaitForWindowActive(w_.get()));
    }
    void cleanup() { w_.reset(); }

    void bidirectionalWeightsOpenUnmaskedAndShowDashes() {
        setSyntheticControls();
        QVERIFY(files_->openFile(test_support::fixture("bertviz_distilbert_headview.json")));
        const attn::SceneSpec& s = w_->scene()->spec();
        QCOMPARE(s.score, attn::ScoreKind::Dot);
        QVERIFY(s.scale);
        QCOMPARE(s.mask.kind, attn::MaskKind::None);
        QCOMPARE(s.temperature, 1.f);
        QVERIFY2(w_->windowTitle().startsWith(QStringLiteral("bertviz_distilbert_headview.json")),
                 qPrintable(w_->windowTitle()));
        // Post-softmax weights: nothing applies, and nothing shows a synthetic value.
        for (QComboBox* combo : {c_->scoreBox(), c_->maskBox()}) {
            QVERIFY(!combo->isEnabled());
            QCOMPARE(combo->currentIndex(), -1);
            QCOMPARE(combo->placeholderText(), dash());
        }
        for (QAbstractSpinBox* spin : std::initializer_list<QAbstractSpinBox*>{
                 c_->temperatureBox(), c_->sigmaBox(), c_->windowBox(), c_->paddingBox()}) {
            QVERIFY(!spin->isEnabled());
            QCOMPARE(spin->text(), dash());
        }
        QCOMPARE(c_->scaleBox()->checkState(), Qt::PartiallyChecked);
        QVERIFY(c_->globalBox()->text().isEmpty());
        QCOMPARE(c_->globalBox()->placeholderText(), dash());
        // The file's head count, not the synthetic four; d_model, positions, seed hidden.
        QCOMPARE(c_->headsBox()->currentText(), QStringLiteral("12"));
        QVERIFY(!c_->dModelBox()->isVisible());
        QVERIFY(!c_->positionalBox()->isVisible());
        QVERIFY(!c_->seedBox()->isVisible());
        QCOMPARE(qobject_cast<QGroupBox*>(c_->headsBox()->parentWidget())->title(),
                 QStringLiteral("Loaded data"));

        // Close Data: the synthetic model's rows are back, under their own title, with values.
        w_->findChild<QAction*>(QStringLiteral("actionCloseData"))->trigger();
        QVERIFY(c_->dModelBox()->isVisible());
        QVERIFY(c_->seedBox()->isVisible());
        QCOMPARE(qobject_cast<QGroupBox*>(c_->dModelBox()->parentWidget())->title(),
                 QStringLiteral("Synthetic model"));
        QVERIFY(c_->scoreBox()->currentIndex() >= 0);
        QCOMPARE(c_->temperatureBox()->value(), 1.0);
        QCOMPARE(c_->temperatureBox()->text(), QStringLiteral("1.000"));
        QCOMPARE(c_->scaleBox()->checkState(), Qt::Checked);
        QVERIFY(c_->scoreBox()->isEnabled());
        // A σ without an RBF score and a width without a window are not in force: dashes.
        QCOMPARE(c_->sigmaBox()->text(), dash());
        QCOMPARE(c_->windowBox()->text(), dash());
    }

    void rawScoresOpenScaledCausalAndTheScaleBoxWorks() {
        setSyntheticControls();
        QVERIFY(files_->openFile(test_support::fixture("gpt2_small_ex0.npz")));
        const attn::SceneSpec& s = w_->scene()->spec();
        const attn::AttentionComponent* shown = attn::shown_component(s);
        QVERIFY(shown && shown->are_scores);
        QCOMPARE(s.score, attn::ScoreKind::Dot);
        QCOMPARE(s.mask.kind, attn::MaskKind::Causal);  // the data says so (zero upper triangle)
        QCOMPARE(s.temperature, 1.f);
        QCOMPARE(c_->temperatureBox()->text(), QStringLiteral("1.000"));
        QCheckBox* scale = c_->scaleBox();
        QVERIFY(scale->isEnabled());
        QCOMPARE(scale->checkState(), Qt::Checked);
        QTest::mouseClick(scale, Qt::LeftButton);  // README tour, step 2: scaling off
        QVERIFY(!w_->scene()->spec().scale);
        QCOMPARE(c_->scoreBox()->currentText(), QStringLiteral("Dot product"));
        QCOMPARE(c_->sigmaBox()->text(), dash());
    }
};

QTEST_MAIN(LoadedSettingsTest)
#include "loaded_settings_test.moc"
