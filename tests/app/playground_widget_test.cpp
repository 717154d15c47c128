// QtTest of the 2-D playground: drags, hull theorem, undo, masking, presets, editing, rendering.
#include <QComboBox>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QUndoStack>
#include <random>

#include "attn/playground/playground.hpp"
#include "model/playground_model.hpp"
#include "playground/controls_panel.hpp"
#include "playground/playground_widget.hpp"
#include "playground/point_plane.hpp"
#include "playground/readout_panel.hpp"
#include "playground/regression_panel.hpp"
#include "playground/weights_chart.hpp"

namespace {

QPoint rounded(const QPointF& p) {
    return p.toPoint();
}

}  // namespace

class PlaygroundWidgetTest : public QObject {
    Q_OBJECT
  private:
    QUndoStack undo_;
    PlaygroundWidget* w_ = nullptr;

    void load(attn::PlaygroundPreset preset) {
        undo_.clear();
        w_->setState(attn::playground_preset(preset));
        w_->replotNow();
    }
    /// Presses on `from`, moves to `to` in two steps, releases.
    static void drag(QWidget* plot, QPoint from, QPoint to, Qt::KeyboardModifiers mods = {}) {
        QTest::mousePress(plot, Qt::LeftButton, mods, from);
        QTest::mouseMove(plot, (from + to) / 2);
        QTest::mouseMove(plot, to);
        QTest::mouseRelease(plot, Qt::LeftButton, mods, to);
    }
    void expectWeightsAreCore() {
        const auto& m = *w_->model();
        const auto core = attn::compute_playground(m.state());
        QCOMPARE(m.result().head.weights.rows(), core.head.weights.rows());
        QVERIFY(m.result().head.weights == core.head.weights);  // exactly what core computes
        // The bar chart shows that row.
        const int sel = m.state().selected_query;
        auto* bars = w_->weightsChart()->bars();
        QCOMPARE(bars->data()->size(), static_cast<int>(m.state().keys.size()));
        for (int p = 0; p < bars->data()->size(); ++p) {
            const int j = w_->weightsChart()->order()[static_cast<std::size_t>(p)];
            QCOMPARE(bars->data()->at(p)->value, static_cast<double>(core.head.weights(sel, j)));
        }
    }

  private Q_SLOTS:
    void initTestCase() {
        w_ = new PlaygroundWidget(&undo_);
        w_->resize(1400, 900);
        w_->show();
        QVERIFY(QTest::qWaitForWindowExposed(w_));
    }
    void cleanupTestCase() { delete w_; }

    void dragKeyMovesItAndWeightsFollowCore() {
        load(attn::PlaygroundPreset::HullCorners);
        PointPlane* plane = w_->queryKeyPlane();
        const PointRef key{PointRef::Kind::Key, 2};
        const auto before = w_->state();
        const QPoint from = rounded(plane->pixelOf(key));
        const QPoint to(static_cast<int>(plane->xAxis->coordToPixel(0.4)),
                        static_cast<int>(plane->yAxis->coordToPixel(0.9)));
        drag(plane, from, to);
        // The key moves by exactly the coordinate difference between release and press pixels.
        const QPointF d = plane->coordOf(to) - plane->coordOf(from);
        const auto& after = w_->state().keys[2];
        QVERIFY(std::abs(after.x() - (before.keys[2].x() + d.x())) < 1e-9);
        QVERIFY(std::abs(after.y() - (before.keys[2].y() + d.y())) < 1e-9);
        // …which is the target within a pixel.
        const double px = std::abs(plane->xAxis->pixelToCoord(1) - plane->xAxis->pixelToCoord(0));
        QVERIFY(std::abs(after.x() - 0.4) < 1.5 * px);
        QVERIFY(std::abs(after.y() - 0.9) < 1.5 * px);
        QVERIFY(w_->model()->result().head.weights !=
                attn::compute_playground(before).head.weights);
        expectWeightsAreCore();
        // Everything else stayed.
        QVERIFY(w_->state().queries == before.queries);
        QVERIFY(w_->state().values == before.values);
        QCOMPARE(undo_.count(), 1);
    }

    void undoRestoresPositions() {
        load(attn::PlaygroundPreset::TwoClusters);
        const auto before = w_->state();
        PointPlane* plane = w_->valuePlane();
        const QPoint from = rounded(plane->pixelOf({PointRef::Kind::Value, 0}));
        drag(plane, from, from + QPoint(40, -25));
        const auto moved = w_->state();
        QVERIFY(!(moved.values == before.values));
        undo_.undo();
        QVERIFY(w_->state().values == before.values);
        QVERIFY(w_->model()->result().head.weights ==
                attn::compute_playground(before).head.weights);
        undo_.redo();
        QVERIFY(w_->state().values == moved.values);
    }

    void randomDragsKeepOutputsInsideTheHull() {
        load(attn::PlaygroundPreset::HullCorners);
        std::mt19937 gen(42);
        std::uniform_int_distribution<int> off(-60, 60);
        int checked = 0;
        for (int t = 0; t < 40; ++t) {
            const auto& s = w_->state();
            PointPlane* plane = t % 2 ? w_->valuePlane() : w_->queryKeyPlane();
            PointRef p;
            if (t % 2) {
                p = {PointRef::Kind::Value, static_cast<int>(gen() % s.values.size())};
            } else if (t % 4 == 0) {
                p = {PointRef::Kind::Query, static_cast<int>(gen() % s.queries.size())};
            } else {
                p = {PointRef::Kind::Key, static_cast<int>(gen() % s.keys.size())};
            }
            const QPoint from = rounded(plane->pixelOf(p));
            QVERIFY(plane->rect().contains(from));
            QPoint to = from + QPoint(off(gen), off(gen));
            to.setX(std::clamp(to.x(), 70, plane->width() - 20));
            to.setY(std::clamp(to.y(), 40, plane->height() - 50));
            drag(plane, from, to);
            w_->model()->setSelection({});
            const auto& r = w_->model()->result();
            for (std::size_t i = 0; i < r.outputs.size(); ++i) {
                QVERIFY(!r.empty[i]);
                QVERIFY2(r.inside[i],
                         qPrintable(QStringLiteral("drag %1, query %2").arg(t).arg(i)));
                ++checked;
            }
        }
        QVERIFY(checked >= 100);
        expectWeightsAreCore();
    }

    void altClickMasksAKey() {
        load(attn::PlaygroundPreset::HullCorners);
        PointPlane* plane = w_->queryKeyPlane();
        QTest::mouseClick(plane, Qt::LeftButton, Qt::AltModifier,
                          rounded(plane->pixelOf({PointRef::Kind::Key, 1})));
        QVERIFY(w_->state().is_masked(1));
        const auto& wts = w_->model()->result().head.weights;
        for (Eigen::Index i = 0; i < wts.rows(); ++i) {
            QCOMPARE(wts(i, 1), 0.f);
            QVERIFY(std::abs(wts.row(i).sum() - 1.f) < 1e-5f);
        }
        expectWeightsAreCore();
        undo_.undo();
        QVERIFY(!w_->state().is_masked(1));
        QVERIFY(w_->model()->result().head.weights(0, 1) > 0.f);
    }

    void fullyMaskedQueriesShowTheirDefinedResult() {
        load(attn::PlaygroundPreset::WorkedExample);
        auto s = w_->state();
        s.masked = {true, true, true};
        w_->model()->setState(s, QStringLiteral("mask all"));
        const auto& r = w_->model()->result();
        QVERIFY(r.empty[0]);
        QVERIFY(r.head.weights.allFinite());
        QCOMPARE(r.outputs[0], Eigen::Vector2d(0, 0));
        QVERIFY(w_->readout()->toPlainText().contains(QStringLiteral("Every key is masked")));
    }

    void presetsLoadWhatTheyPromise() {
        QComboBox* box = w_->controls()->presetBox();
        for (int i = 1; i < box->count(); ++i) {
            const auto p = static_cast<attn::PlaygroundPreset>(box->itemData(i).toInt());
            Q_EMIT box->activated(i);
            QVERIFY(w_->state() == attn::playground_preset(p));
        }
        const int we = box->findData(static_cast<int>(attn::PlaygroundPreset::WorkedExample));
        Q_EMIT box->activated(we);
        const auto& wts = w_->model()->result().head.weights;
        QVERIFY(std::abs(wts(0, 0) - 0.5065) < 1e-4);
        QVERIFY(std::abs(wts(0, 1) - 0.1863) < 1e-4);
        QVERIFY(std::abs(wts(0, 2) - 0.3072) < 1e-4);
        QVERIFY(std::abs(w_->model()->result().outputs[0].x() - 18.007) < 1e-3);
        QVERIFY(w_->readout()->toPlainText().contains(QStringLiteral("0.5065")));
        undo_.undo();  // loading a preset is one undo step
        QVERIFY(!(w_->state() == attn::playground_preset(attn::PlaygroundPreset::WorkedExample)));
    }

    void controlsEditTheStateUndoably() {
        load(attn::PlaygroundPreset::Saturation);
        const float saturated = w_->model()->result().head.weights.row(0).maxCoeff();
        w_->controls()->scaleBox()->setChecked(true);
        QVERIFY(w_->state().scale);
        QVERIFY(w_->model()->result().head.weights.row(0).maxCoeff() < saturated);
        w_->controls()->asIfDkBox()->setValue(2);
        w_->controls()->asIfDkBox()->setValue(3);
        QCOMPARE(w_->state().as_if_dk, 3);
        QCOMPARE(undo_.count(), 2);  // the spin box's edits merged
        undo_.undo();
        QCOMPARE(w_->state().as_if_dk, 1024);
        QCOMPARE(w_->controls()->asIfDkBox()->value(), 1024);
    }

    void addDeleteNudge() {
        load(attn::PlaygroundPreset::WorkedExample);
        PointPlane* plane = w_->queryKeyPlane();
        const QPoint empty(plane->width() / 2 + 37, 60);
        QTest::mouseDClick(plane, Qt::LeftButton, {}, empty);
        QCOMPARE(w_->state().keys.size(), 4u);
        QCOMPARE(w_->state().values.size(), 4u);
        QTest::mouseDClick(plane, Qt::LeftButton, Qt::ShiftModifier, empty + QPoint(0, 40));
        QCOMPARE(w_->state().queries.size(), 2u);
        // Select key 1 and nudge it right twice: one merged undo step.
        w_->model()->setSelection({{PointRef::Kind::Key, 0}});
        const double x = w_->state().keys[0].x();
        plane->setFocus();
        QTest::keyClick(plane, Qt::Key_Right);
        QTest::keyClick(plane, Qt::Key_Right);
        QVERIFY(std::abs(w_->state().keys[0].x() - (x + 0.1)) < 1e-12);
        QTest::keyClick(plane, Qt::Key_Delete);
        QCOMPARE(w_->state().keys.size(), 3u);
        QCOMPARE(w_->state().values.size(), 3u);
        undo_.undo();
        QCOMPARE(w_->state().keys.size(), 4u);
        // Multi-select with Ctrl and drag both.
        w_->model()->setSelection({});
        const auto before = w_->state();
        QTest::mouseClick(plane, Qt::LeftButton, Qt::ControlModifier,
                          rounded(plane->pixelOf({PointRef::Kind::Key, 1})));
        QTest::mouseClick(plane, Qt::LeftButton, Qt::ControlModifier,
                          rounded(plane->pixelOf({PointRef::Kind::Key, 2})));
        QCOMPARE(w_->model()->selection().size(), 2u);
        const QPoint k1 = rounded(plane->pixelOf({PointRef::Kind::Key, 1}));
        drag(plane, k1, k1 + QPoint(30, 0));
        QVERIFY(w_->state().keys[1].x() > before.keys[1].x());
        QVERIFY(w_->state().keys[2].x() > before.keys[2].x());
        QVERIFY(std::abs((w_->state().keys[1] - before.keys[1]).x() -
                         (w_->state().keys[2] - before.keys[2]).x()) < 1e-12);
    }

    void snapToGrid() {
        load(attn::PlaygroundPreset::TwoClusters);
        auto s = w_->state();
        s.snap_to_grid = true;
        s.grid_step = 0.5;
        w_->model()->setState(s, QStringLiteral("snap"));
        PointPlane* plane = w_->queryKeyPlane();
        const QPoint from = rounded(plane->pixelOf({PointRef::Kind::Key, 0}));
        drag(plane, from, from + QPoint(23, 17));
        const auto& k = w_->state().keys[0];
        QVERIFY(std::abs(k.x() * 2 - std::round(k.x() * 2)) < 1e-12);
        QVERIFY(std::abs(k.y() * 2 - std::round(k.y() * 2)) < 1e-12);
    }

    void regressionPanelDragsKeys() {
        load(attn::PlaygroundPreset::TwoClusters);
        RegressionPanel* rp = w_->regression();
        rp->replot(QCustomPlot::rpImmediateRefresh);
        const auto before = w_->state();
        const QPoint from = rounded(rp->pixelOfKey(0));
        QVERIFY(rp->rect().contains(from));
        drag(rp, from, from + QPoint(20, -15));
        QVERIFY(w_->state().keys[0].x() > before.keys[0].x());
        QVERIFY(w_->state().values[0].x() > before.values[0].x());
        QCOMPARE(w_->state().keys[0].y(), before.keys[0].y());
        QVERIFY(rp->rbfCurve()->data()->size() > 100);
        // The curve is Nadaraya–Watson of the keys: between the values' extremes.
        for (int i = 0; i < rp->rbfCurve()->data()->size(); ++i) {
            const double y = rp->rbfCurve()->data()->at(i)->value;
            QVERIFY(std::isfinite(y));
        }
    }

    void overlayAndRender() {
        load(attn::PlaygroundPreset::HullCorners);
        auto s = w_->state();
        s.overlay = true;
        s.hard_sample = true;
        w_->model()->setState(s, QStringLiteral("overlay"));
        QVERIFY(!w_->valuePlane()->isVisible());
        QVERIFY(w_->queryKeyPlane()->shows(PointRef::Kind::Value));
        const QImage img = w_->renderImage(QSize(1200, 800));
        QCOMPARE(img.size(), QSize(1200, 800));
        // Not blank: many distinct colours.
        QSet<QRgb> colors;
        for (int y = 0; y < img.height(); y += 7)
            for (int x = 0; x < img.width(); x += 7)
                colors.insert(img.pixel(x, y));
        QVERIFY(colors.size() > 20);
        const QString out = qEnvironmentVariable("ATTN_PLAYGROUND_PNG");
        if (!out.isEmpty()) {
            w_->model()->resetState(attn::playground_preset(attn::PlaygroundPreset::HullCorners));
            w_->renderImage(QSize(1400, 900)).save(out);
        }
    }

    void renderHiddenTabOrStandalone() {
        // In a hidden tab: rendering must not show it over the current tab.
        QTabWidget tabs;
        tabs.addTab(new QWidget, QStringLiteral("first"));
        auto* pg = new PlaygroundWidget(nullptr);
        tabs.addTab(pg, QStringLiteral("Playground"));
        tabs.resize(800, 600);
        tabs.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tabs));
        const QImage a = pg->renderImage(QSize(1000, 700));
        QCOMPARE(a.size(), QSize(1000, 700));
        QCOMPARE(tabs.currentIndex(), 0);
        QVERIFY(!pg->isVisible());
        // Standalone and never shown (the command line's case).
        PlaygroundWidget standalone(nullptr);
        const QImage b = standalone.renderImage(QSize(900, 600));
        QCOMPARE(b.size(), QSize(900, 600));
        for (const QImage& img : {a, b}) {
            QSet<QRgb> colors;
            for (int y = 0; y < img.height(); y += 5)
                for (int x = 0; x < img.width(); x += 5)
                    colors.insert(img.pixel(x, y));
            QVERIFY(colors.size() > 20);
        }
        // Without an undo stack edits still apply.
        auto s = standalone.state();
        s.temperature = 2;
        standalone.model()->setState(s, QStringLiteral("t"));
        QCOMPARE(standalone.state().temperature, 2.0);
    }
};

QTEST_MAIN(PlaygroundWidgetTest)
#include "playground_widget_test.moc"
