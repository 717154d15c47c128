// Every control changes the scene and the plotted data (compared with core's numbers); undo
// restores the previous scene and picture exactly.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSlider>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>
#include <functional>

#include "app_test_support.hpp"
#include "views/color_maps.hpp"
#include "widgets/controls_dock.hpp"
#include "widgets/token_editor.hpp"

using test_support::drawnAll;
using test_support::sameValues;

class ControlsTest : public QObject {
    Q_OBJECT
    std::unique_ptr<MainWindow> w_;
    ControlsDock* c_ = nullptr;

    /// Applies edit, then checks: the spec changed as `check` says, the drawn weights changed
    /// and equal core's weights for the new spec.
    void expectChange(const char* what, const std::function<void()>& edit,
                      const std::function<bool(const attn::SceneSpec&)>& check) {
        const auto before = drawnAll(w_->heatmapGrid());
        const attn::SceneSpec specBefore = w_->scene()->spec();
        edit();
        test_support::settle(w_->computeService());
        QVERIFY2(check(w_->scene()->spec()), what);
        QVERIFY2(!(specBefore == w_->scene()->spec()), what);
        QVERIFY2(!sameValues(before, drawnAll(w_->heatmapGrid())), what);
        const QString diff = test_support::compareWithCore(w_->heatmapGrid(), w_->scene()->spec());
        QVERIFY2(diff.isEmpty(),
                 qPrintable(QStringLiteral("%1: %2").arg(QLatin1StringView(what), diff)));
    }

  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void init() {
        w_ = std::make_unique<MainWindow>();
        w_->scene()->setMergeWindow(0);  // one undo step per edit: the undo test counts them
        c_ = w_->controlsDock();
        test_support::showWindow(*w_);
    }
    void cleanup() { w_.reset(); }

    void defaultSceneIsDrawnExactly() {
        QVERIFY(w_->scene()->spec() == attn::SceneSpec{});
        QCOMPARE(w_->heatmapGrid()->headCount(), 4);
        const QString diff = test_support::compareWithCore(w_->heatmapGrid(), attn::SceneSpec{});
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void scoreControls() {
        expectChange(
            "dot", [&] { c_->scoreBox()->setCurrentIndex(0); },
            [](auto& s) { return s.score == attn::ScoreKind::Dot && !s.scale; });
        expectChange(
            "scale", [&] { c_->scaleBox()->setChecked(true); }, [](auto& s) { return s.scale; });
        expectChange(
            "general", [&] { c_->scoreBox()->setCurrentIndex(2); },
            [](auto& s) { return s.score == attn::ScoreKind::General; });
        expectChange(
            "additive", [&] { c_->scoreBox()->setCurrentIndex(3); },
            [](auto& s) { return s.score == attn::ScoreKind::Additive; });
        expectChange(
            "rbf", [&] { c_->scoreBox()->setCurrentIndex(4); },
            [](auto& s) { return s.score == attn::ScoreKind::Rbf; });
        QVERIFY(c_->sigmaBox()->isEnabled());
        expectChange(
            "sigma", [&] { c_->sigmaBox()->setValue(3.0); },
            [](auto& s) { return s.sigma == 3.f; });
    }

    void temperatureControls() {
        expectChange(
            "temperature", [&] { c_->temperatureBox()->setValue(0.3); },
            [](auto& s) { return std::abs(s.temperature - 0.3f) < 1e-6f; });
        expectChange(
            "slider", [&] { c_->temperatureSlider()->setValue(900); },
            [](auto& s) { return s.temperature > 10.f; });
        QVERIFY(std::abs(c_->temperatureBox()->value() - w_->scene()->spec().temperature) < 1e-5);
        expectChange(
            "hard", [&] { c_->temperatureBox()->setValue(0); },
            [](auto& s) { return s.temperature == 0.f; });
    }

    void maskControls() {
        const auto pick = [&](attn::MaskKind k) {
            c_->maskBox()->setCurrentIndex(c_->maskBox()->findData(int(k)));
        };
        expectChange(
            "causal", [&] { pick(attn::MaskKind::Causal); },
            [](auto& s) { return s.mask.kind == attn::MaskKind::Causal; });
        expectChange(
            "anti-causal", [&] { pick(attn::MaskKind::AntiCausal); },
            [](auto& s) { return s.mask.kind == attn::MaskKind::AntiCausal; });
        expectChange(
            "window", [&] { pick(attn::MaskKind::SlidingWindow); },
            [](auto& s) { return s.mask.kind == attn::MaskKind::SlidingWindow; });
        QVERIFY(c_->windowBox()->isEnabled());
        expectChange(
            "window width", [&] { c_->windowBox()->setValue(4); },
            [](auto& s) { return s.mask.window == 4; });
        expectChange(
            "global", [&] { pick(attn::MaskKind::GlobalWindow); },
            [](auto& s) { return s.mask.kind == attn::MaskKind::GlobalWindow; });
        expectChange(
            "global tokens",
            [&] {
                c_->globalBox()->setText(QStringLiteral("3, 7"));
                Q_EMIT c_->globalBox()->editingFinished();
            },
            [](auto& s) {
                return s.mask.global == std::vector<attn::Index>{3, 7};
            });
        expectChange(
            "padding", [&] { pick(attn::MaskKind::Padding); },
            [](auto& s) { return s.mask.kind == attn::MaskKind::Padding; });
        expectChange(
            "padded keys", [&] { c_->paddingBox()->setValue(4); },
            [](auto& s) {
                return s.mask.key_valid.size() == 13 && !s.mask.key_valid[9] && s.mask.key_valid[8];
            });
    }

    void modelControls() {
        expectChange(
            "heads", [&] { c_->headsBox()->setCurrentIndex(c_->headsBox()->findData(8)); },
            [](auto& s) { return s.heads == 8; });
        QCOMPARE(w_->heatmapGrid()->headCount(), 8);
        expectChange(
            "d_model", [&] { c_->dModelBox()->setValue(96); },
            [](auto& s) { return s.d_model == 96 && s.heads == 8; });
        // Only divisors of d_model are offered.
        for (int i = 0; i < c_->headsBox()->count(); ++i)
            QCOMPARE(96 % c_->headsBox()->itemData(i).toInt(), 0);
        expectChange(
            "d_model not divisible", [&] { c_->dModelBox()->setValue(90); },
            [](auto& s) { return s.d_model == 90 && s.heads == 6; });
        expectChange(
            "positions", [&] { c_->positionalBox()->setCurrentIndex(1); },
            [](auto& s) { return s.positional == attn::PositionalKind::Learned; });
        expectChange(
            "no positions", [&] { c_->positionalBox()->setCurrentIndex(2); },
            [](auto& s) { return s.positional == attn::PositionalKind::None; });
        expectChange(
            "seed", [&] { c_->seedBox()->setValue(7); }, [](auto& s) { return s.seed == 7; });
    }

    void sentenceEditor() {
        TokenEditor* t = w_->tokenEditor();
        expectChange(
            "text",
            [&] {
                t->editor()->setPlainText(QStringLiteral("The cat sat on the mat ."));
                t->flush();
            },
            [](auto& s) { return s.text == "The cat sat on the mat ."; });
        QCOMPARE(w_->result()->q_tokens.size(), std::size_t(7));
    }

    void displayControls() {
        HeatmapGrid* g = w_->heatmapGrid();
        c_->colorMapBox()->setCurrentIndex(c_->colorMapBox()->findData(int(ColorMapKind::Magma)));
        QCOMPARE(g->head(0)->colorMap()->gradient().colorStops(),
                 makeGradient(ColorMapKind::Magma).colorStops());
        QCOMPARE(makeGradient(ColorMapKind::Magma).colorStops().first(), QColor(0, 0, 4));
        c_->logScaleBox()->setChecked(true);
        QCOMPARE(g->head(0)->colorMap()->dataScaleType(), QCPAxis::stLogarithmic);
        QVERIFY(g->head(0)->colorMap()->dataRange().lower > 0);
        c_->logScaleBox()->setChecked(false);
        QCOMPARE(g->head(0)->colorMap()->dataScaleType(), QCPAxis::stLinear);
        // Shared range: every head uses the grid's range; per head: each its own maximum.
        const QCPRange shared = g->sharedRange();
        for (int h = 0; h < g->headCount(); ++h)
            QCOMPARE(g->head(h)->colorMap()->dataRange(), shared);
        c_->sharedRangeBox()->setChecked(false);
        for (int h = 0; h < g->headCount(); ++h) {
            QVERIFY(g->head(h)->colorScale() != nullptr);
            const double top = w_->result()->heads[std::size_t(h)].weights.maxCoeff();
            QVERIFY(std::abs(g->head(h)->colorMap()->dataRange().upper - top) < 1e-6);
        }
        c_->sharedRangeBox()->setChecked(true);
        QVERIFY(g->head(0)->colorScale() == nullptr);
        // Display options are undoable like every other edit, and leave the spec alone.
        QCOMPARE(w_->scene()->undoStack()->count(), 5);
        QVERIFY(w_->scene()->spec() == attn::SceneSpec{});
        w_->scene()->undoStack()->setIndex(0);
        QCOMPARE(g->style(), HeatmapStyle{});
    }

    void undoRestoresScenesAndPictures() {
        const auto original = drawnAll(w_->heatmapGrid());
        c_->temperatureBox()->setValue(0.2);
        c_->maskBox()->setCurrentIndex(c_->maskBox()->findData(int(attn::MaskKind::Causal)));
        const attn::SceneSpec afterTwo = w_->scene()->spec();
        const auto pictureTwo = drawnAll(w_->heatmapGrid());
        c_->headsBox()->setCurrentIndex(c_->headsBox()->findData(2));
        test_support::settle(w_->computeService());
        QCOMPARE(w_->scene()->undoStack()->count(), 3);

        w_->scene()->undoStack()->undo();
        test_support::settle(w_->computeService());
        QVERIFY(w_->scene()->spec() == afterTwo);
        QVERIFY(sameValues(drawnAll(w_->heatmapGrid()), pictureTwo));
        // The controls follow undo too.
        QCOMPARE(c_->headsBox()->currentData().toInt(), 4);
        w_->scene()->undoStack()->undo();
        w_->scene()->undoStack()->undo();
        test_support::settle(w_->computeService());
        QVERIFY(w_->scene()->spec() == attn::SceneSpec{});
        QVERIFY(sameValues(drawnAll(w_->heatmapGrid()), original));
        QCOMPARE(c_->temperatureBox()->value(), 1.0);
        w_->scene()->undoStack()->redo();
        test_support::settle(w_->computeService());
        QCOMPARE(w_->scene()->spec().temperature, 0.2f);
    }
};

QTEST_MAIN(ControlsTest)
#include "controls_test.moc"
