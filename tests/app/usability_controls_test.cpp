// QtTest with real key and mouse events: typed numbers apply when the user is done, undo works
// from any control, hover numbers stay readable, log colour scales do not lie, and the
// synthetic scene says what it is. GPL-3.0-or-later.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTest>
#include <QToolButton>
#include <QToolTip>
#include <QUndoStack>

#include "app_test_support.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "lenses/lens_panel.hpp"
#include "settings_keys.hpp"
#include "widgets/controls_dock.hpp"

class UsabilityControlsTest : public QObject {
    Q_OBJECT
    std::unique_ptr<MainWindow> w_;
    ControlsDock* c_ = nullptr;

    void settle() { test_support::settle(w_->computeService()); }

    /// Selects the text of a spin box and types `text`, key by key, without committing.
    static void typeInto(QAbstractSpinBox* box, const QString& text) {
        box->setFocus(Qt::OtherFocusReason);
        QTest::keyClick(box, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(box, text);
    }

  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        // attachDataIo offers to recover an autosave: use a path no other test writes.
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeUsabilityTest"));
        QDir(fileio::FileController::autosaveFolder()).removeRecursively();
    }

    void init() {
        w_ = std::make_unique<MainWindow>();
        w_->scene()->setMergeWindow(0);
        c_ = w_->controlsDock();
        test_support::showWindow(*w_);
        QApplication::setActiveWindow(w_.get());
        QVERIFY(QTest::qWaitForWindowActive(w_.get()));
    }
    void cleanup() { w_.reset(); }

    void typedTemperatureAppliesOnEnter() {
        QDoubleSpinBox* tau = c_->temperatureBox();
        typeInto(tau, QStringLiteral("0.25"));
        // While typing, "0" (the hard max) and "0.2" were never applied.
        QCOMPARE(w_->scene()->spec().temperature, 1.f);
        QCOMPARE(w_->scene()->undoStack()->count(), 0);
        QTest::keyClick(tau, Qt::Key_Return);
        settle();
        QCOMPARE(w_->scene()->spec().temperature, 0.25f);
        QCOMPARE(w_->scene()->undoStack()->count(), 1);  // one step, not one per keystroke
        // Arrow keys step at once.
        QTest::keyClick(tau, Qt::Key_Up);
        QCOMPARE(w_->scene()->spec().temperature, 0.3f);
        // The slider stays live: every step applies.
        QSlider* slider = c_->temperatureSlider();
        slider->setFocus();
        const float before = w_->scene()->spec().temperature;
        QTest::keyClick(slider, Qt::Key_PageUp);
        QVERIFY(w_->scene()->spec().temperature > before);
    }

    void typedTemperatureAppliesOnFocusOut() {
        QDoubleSpinBox* tau = c_->temperatureBox();
        typeInto(tau, QStringLiteral("2.5"));
        QCOMPARE(w_->scene()->spec().temperature, 1.f);
        QTest::keyClick(tau, Qt::Key_Tab);  // focus moves on: the number is done
        QCOMPARE(w_->scene()->spec().temperature, 2.5f);
    }

    void typedDModelKeepsTheHeads() {
        QComboBox* heads = c_->headsBox();
        heads->setCurrentIndex(heads->findData(8));
        settle();
        QCOMPARE(w_->scene()->spec().heads, attn::Index(8));
        typeInto(c_->dModelBox(), QStringLiteral("128"));
        QTest::keyClick(c_->dModelBox(), Qt::Key_Enter);
        settle();
        QCOMPARE(w_->scene()->spec().d_model, attn::Index(128));
        QCOMPARE(w_->scene()->spec().heads, attn::Index(8));  // "1" and "12" never applied
        QCOMPARE(w_->heatmapGrid()->headCount(), 8);
    }

    void ctrlZUndoesTheSceneFromAFocusedSpinBox() {
        QDoubleSpinBox* tau = c_->temperatureBox();
        typeInto(tau, QStringLiteral("0.5"));
        QTest::keyClick(tau, Qt::Key_Return);
        QCOMPARE(w_->scene()->spec().temperature, 0.5f);
        QVERIFY(tau->hasFocus());
        QTest::keyClick(tau, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w_->scene()->spec().temperature, 1.f);
        QCOMPARE(tau->value(), 1.0);
        QTest::keyClick(tau, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(w_->scene()->spec().temperature, 0.5f);
        // From the d_model field too, and from the sentence box (its typing becomes a step).
        QTest::keyClick(c_->dModelBox(), Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w_->scene()->spec().temperature, 1.f);
    }

    // Issue 26, item 14: the first Ctrl+Z while typing discards the typing only.
    void ctrlZWhileTypingDiscardsOnlyTheTyping() {
        typeInto(c_->dModelBox(), QStringLiteral("128"));
        QTest::keyClick(c_->dModelBox(), Qt::Key_Return);
        QCOMPARE(w_->scene()->spec().d_model, attn::Index(128));
        QDoubleSpinBox* tau = c_->temperatureBox();
        typeInto(tau, QStringLiteral("0.25"));
        QCOMPARE(w_->scene()->spec().temperature, 1.f);  // typed, not applied
        QTest::keyClick(tau, Qt::Key_Z, Qt::ControlModifier);
        // The typing is gone, the field shows the value in force, the scene is untouched.
        QCOMPARE(tau->text(), QStringLiteral("1.000"));
        QCOMPARE(w_->scene()->spec().d_model, attn::Index(128));
        QCOMPARE(w_->scene()->spec().temperature, 1.f);
        QTest::keyClick(tau, Qt::Key_Tab);  // leaving the field applies nothing now
        QCOMPARE(w_->scene()->spec().temperature, 1.f);
        QCOMPARE(w_->scene()->undoStack()->count(), 1);
        // The next Ctrl+Z is the scene's: d_model goes back.
        tau->setFocus(Qt::OtherFocusReason);
        QTest::keyClick(tau, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w_->scene()->spec().d_model, attn::Index(64));
        // The same in the global tokens field (a line edit that routes undo to the scene).
        QLineEdit* global = c_->globalBox();
        c_->maskBox()->setCurrentIndex(c_->maskBox()->findData(int(attn::MaskKind::GlobalWindow)));
        const attn::SceneSpec masked = w_->scene()->spec();
        global->setFocus(Qt::OtherFocusReason);
        QTest::keyClick(global, Qt::Key_End);
        QTest::keyClicks(global, QStringLiteral(", 3"));
        QTest::keyClick(global, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(global->text(), QStringLiteral("0"));
        QVERIFY(w_->scene()->spec() == masked);
        QTest::keyClick(global, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w_->scene()->spec().mask.kind, attn::MaskKind::None);
    }

    void displayControlsAreUndoable() {
        QCheckBox* log = c_->logScaleBox();
        QVERIFY(!w_->heatmapGrid()->style().logScale);
        QTest::mouseClick(log, Qt::LeftButton);
        QVERIFY(w_->heatmapGrid()->style().logScale);
        QComboBox* maps = c_->colorMapBox();
        maps->setCurrentIndex(maps->findData(int(ColorMapKind::Magma)));
        QCOMPARE(w_->heatmapGrid()->style().colorMap, ColorMapKind::Magma);
        QCOMPARE(w_->scene()->undoStack()->count(), 2);
        QTest::keyClick(log, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(w_->heatmapGrid()->style().colorMap, ColorMapKind::Viridis);
        QCOMPARE(maps->currentData().toInt(), int(ColorMapKind::Viridis));
        QTest::keyClick(log, Qt::Key_Z, Qt::ControlModifier);
        QVERIFY(!w_->heatmapGrid()->style().logScale);
        QVERIFY(!log->isChecked());
        QTest::keyClick(log, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(w_->heatmapGrid()->style().logScale);
    }

    void everySpinBoxWaitsForTheUserToFinish() {
        fileio::attachDataIo(w_.get(), {});
        QCoreApplication::processEvents();
        const auto boxes = w_->findChildren<QAbstractSpinBox*>();
        QVERIFY(boxes.size() >= 15);
        for (QAbstractSpinBox* box : boxes)
            QVERIFY2(!box->keyboardTracking(),
                     qPrintable(box->objectName() + QLatin1Char(' ') + box->toolTip()));
    }

    void hoverNumbersStayAfterTheMouseRests() {
        HeadHeatmap* head = w_->heatmapGrid()->head(0);
        // The grid names the axes once, for every head.
        auto* readout = w_->heatmapGrid()->findChild<QLabel*>(QStringLiteral("cellReadout"));
        QVERIFY(readout);
        QVERIFY2(readout->text().startsWith(QStringLiteral("Rows are queries, columns are keys")),
                 qPrintable(readout->text()));
        const QRect r = head->axisRect()->rect();
        // Centre of cell (query 2, key 3).
        const QPoint at(int(head->xAxis->coordToPixel(3)), int(head->yAxis->coordToPixel(2)));
        QVERIFY(r.contains(at));
        QTest::mouseMove(head, at);
        const double weight = w_->result()->heads[0].weights(2, 3);
        const QString w4 = QString::number(weight, 'f', 4);
        // The fixed readout under the heads holds the numbers, whatever tooltips do.
        QVERIFY2(w_->heatmapGrid()->readout()->text().contains(w4),
                 qPrintable(w_->heatmapGrid()->readout()->text()));
        QVERIFY(w_->heatmapGrid()->readout()->text().contains(QStringLiteral("raw")));
        // The mouse resting asks for a tooltip: none comes (it covered the neighbouring head
        // and took its next click), nor the grid's generic help; the readout keeps the numbers.
        QHelpEvent rest(QEvent::ToolTip, at, head->mapToGlobal(at));
        QCoreApplication::sendEvent(head, &rest);
        QVERIFY(!QToolTip::isVisible() ||
                !QToolTip::text().contains(QStringLiteral("Attention weights per head")));
        QVERIFY(!QToolTip::text().contains(w4));
        // What the mouse resting longer brings, delivered at once instead of waited for: Qt's
        // wake-up timer sends the same request again, and whatever that posts runs.
        QCoreApplication::sendEvent(head, &rest);
        test_support::settleAll(w_->computeService());
        QVERIFY2(w_->heatmapGrid()->readout()->text().contains(w4),
                 qPrintable(w_->heatmapGrid()->readout()->text()));
        // The title's statistics are explained where they are.
        QVERIFY(head->toolTipAt(head->rect().topLeft() + QPoint(head->width() / 2, 4))
                    .contains(QStringLiteral("entropy")));
    }

    void logScaleAtHardMaxShowsRealWeights() {
        attn::SceneSpec s = w_->scene()->spec();
        s.temperature = 0;
        w_->scene()->setSpec(s, QStringLiteral("hard"));
        settle();
        QTest::mouseClick(c_->logScaleBox(), Qt::LeftButton);
        QCoreApplication::processEvents();
        HeatmapGrid* grid = w_->heatmapGrid();
        const QCPRange range = grid->sharedRange();
        QCOMPARE(range.upper, 1.0);
        QVERIFY(qFuzzyCompare(range.lower, 1e-3));
        HeadHeatmap* head = grid->head(0);
        QCPColorMapData* d = head->colorMap()->data();
        const attn::Matrix& w = w_->result()->heads[0].weights;
        QCPColorGradient g = head->colorMap()->gradient();
        QRgb top = 0, bottom = 0;
        g.colorize(&range.upper, range, &top, 1, 1, true);
        g.colorize(&range.lower, range, &bottom, 1, 1, true);
        int ones = 0, zeros = 0;
        for (int q = 0; q < w.rows(); ++q)
            for (int k = 0; k < w.cols(); ++k) {
                const double drawnValue = d->cell(k, q);
                QRgb c = 0;
                g.colorize(&drawnValue, range, &c, 1, 1, true);
                if (w(q, k) == 1.f) {
                    QCOMPARE(c, top);  // weight 1: the brightest colour
                    ++ones;
                } else if (w(q, k) == 0.f) {
                    QCOMPARE(c, bottom);  // weight 0: the floor's colour
                    ++zeros;
                }
            }
        QVERIFY(ones > 0 && zeros > 0);
        // The colour bar reads weights at powers of ten.
        QCPAxis* axis = grid->colorScale()->axis();
        QVERIFY(!axis->ticker().dynamicCast<QCPAxisTickerLog>().isNull());
        grid->colorScale()->parentPlot()->replot();
        const QVector<QString> labels = axis->tickVectorLabels();
        QVERIFY2(labels.contains(QStringLiteral("0.001")) && labels.contains(QStringLiteral("1")) &&
                     labels.contains(QStringLiteral("0.1")),
                 qPrintable(QStringList(labels.begin(), labels.end()).join(QLatin1Char(','))));
        QVERIFY(axis->label().contains(QStringLiteral("0.001")));
    }

    void syntheticSceneSaysWhatItIs() {
        QLabel* note = w_->heatmapGrid()->note();
        QVERIFY(note->isVisible());
        QVERIFY(note->text().contains(QStringLiteral("random projections")));
        QVERIFY(note->text().contains(QStringLiteral("seed")));
        QVERIFY(note->text().contains(QStringLiteral("no trained model")));
        QVERIFY(note->text().contains(QStringLiteral("1992")));
        QWidget* hint = w_->hint();
        QVERIFY(hint->isVisible());
        auto* label = hint->findChild<QLabel*>();
        QVERIFY(label->text().contains(QStringLiteral("click")));
        QVERIFY(label->text().contains(QStringLiteral("Playground")));
        QVERIFY(label->text().contains(QStringLiteral("File ▸ Examples")));
        QTest::mouseClick(hint->findChild<QToolButton*>(QStringLiteral("closeHint")),
                          Qt::LeftButton);
        QVERIFY(!hint->isVisible());
        QVERIFY(QSettings().value(settings_keys::kHintDismissed).toBool());
        MainWindow second;  // a later launch: no hint
        QVERIFY(second.hint()->isHidden());
        QSettings().remove(settings_keys::kHintDismissed);
    }

    void alignmentNeverPairsAnEditedSourceWithTheDefaultTarget() {
        auto* lens = w_->findChild<LensPanel*>(QStringLiteral("lens_alignment"));
        QVERIFY(lens);
        auto* source = lens->findChild<QLineEdit*>(QStringLiteral("alignmentSource"));
        auto* target = lens->findChild<QLineEdit*>(QStringLiteral("alignmentTarget"));
        QVERIFY(target->text().startsWith(QStringLiteral("L' accord")));  // the default pair
        // The user edits the sentence: the French translation no longer belongs to it.
        attn::SceneSpec s = w_->scene()->spec();
        s.text = "The cat sat on the mat .";
        w_->scene()->setSpec(s, QStringLiteral("edit"));
        QCOMPARE(source->text(), QStringLiteral("The cat sat on the mat ."));
        QCOMPARE(target->text(), source->text());
        // Editing the source in the lens itself does the same; a typed target is kept.
        source->setFocus();
        source->selectAll();
        QTest::keyClicks(source, QStringLiteral("Le chat"));
        QTest::keyClick(source, Qt::Key_Return);
        QCOMPARE(target->text(), QStringLiteral("Le chat"));
        target->setFocus();
        target->selectAll();
        QTest::keyClicks(target, QStringLiteral("The cat"));
        QTest::keyClick(target, Qt::Key_Return);
        s.text = "A dog ran .";
        w_->scene()->setSpec(s, QStringLiteral("edit 2"));
        QCOMPARE(target->text(), QStringLiteral("The cat"));
    }
};

QTEST_MAIN(UsabilityControlsTest)
#include "usability_controls_test.moc"
