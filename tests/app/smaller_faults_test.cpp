// QtTest: the smaller faults of the usability issue. A greyed "Scale by 1/√d_k" is never shown
// checked for additive or RBF scores (whose factor is 1), in the dock and in the playground;
// playground labels never overlap, also when an output sits on a value; label placement by hand.
#include <QCheckBox>
#include <QComboBox>
#include <QtTest>

#include "app_test_support.hpp"
#include "model/playground_model.hpp"
#include "playground/controls_panel.hpp"
#include "playground/label_placement.hpp"
#include "playground/playground_widget.hpp"
#include "playground/point_plane.hpp"
#include "widgets/controls_dock.hpp"

class SmallerFaultsTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void scaleBoxIsClearWhereItDoesNotApply() {
        MainWindow w;
        test_support::showWindow(w);
        QCheckBox* scale = w.controlsDock()->scaleBox();
        QComboBox* score = w.controlsDock()->scoreBox();
        QVERIFY(scale->isChecked() && scale->isEnabled());  // scaled dot product
        for (int index : {3, 4}) {                          // additive, RBF
            score->setCurrentIndex(index);
            test_support::settle(w.computeService());
            QVERIFY(w.scene()->spec().scale);  // the setting is kept for when it applies again
            QVERIFY2(!scale->isEnabled() && !scale->isChecked(), qPrintable(score->currentText()));
        }
        score->setCurrentIndex(1);
        test_support::settle(w.computeService());
        QVERIFY(scale->isEnabled() && scale->isChecked());
    }

    void playgroundScaleBoxToo() {
        QUndoStack undo;
        PlaygroundWidget pg(&undo);
        QCheckBox* scale = pg.controls()->scaleBox();
        QVERIFY(scale->isChecked());
        for (attn::ScoreKind kind : {attn::ScoreKind::Additive, attn::ScoreKind::Rbf}) {
            attn::PlaygroundState s = pg.state();
            s.score = kind;
            pg.model()->setState(s, QStringLiteral("score"));
            QVERIFY(!scale->isEnabled() && !scale->isChecked());
        }
        attn::PlaygroundState s = pg.state();
        s.score = attn::ScoreKind::Dot;
        pg.model()->setState(s, QStringLiteral("score"));
        QVERIFY(scale->isEnabled() && scale->isChecked());
    }

    // An output on a vertex: at τ → 0 query 1 takes value 1 exactly, so "o1" and "v1" share a
    // point. Every label is placed apart from every other.
    void playgroundLabelsNeverOverlap() {
        QUndoStack undo;
        PlaygroundWidget pg(&undo);
        pg.setAttribute(Qt::WA_DontShowOnScreen);
        pg.resize(1200, 800);
        pg.show();
        attn::PlaygroundState s = pg.state();
        s.temperature = 0;  // hard argmax
        pg.model()->setState(s, QStringLiteral("hard"));
        pg.fitViews();
        pg.replotNow();
        const auto& r = pg.model()->result();
        bool onVertex = false;
        for (const auto& o : r.outputs)
            for (const auto& v : pg.state().values)
                onVertex = onVertex || (o - v).norm() < 1e-6;
        QVERIFY(onVertex);
        for (PointPlane* plane : {pg.queryKeyPlane(), pg.valuePlane()}) {
            const std::vector<QRectF>& rects = plane->labelRects();
            QVERIFY(rects.size() >= 6);
            for (std::size_t a = 0; a < rects.size(); ++a)
                for (std::size_t b = a + 1; b < rects.size(); ++b)
                    QVERIFY2(!rects[a].intersects(rects[b]),
                             qPrintable(QStringLiteral("%1: labels %2 and %3")
                                            .arg(plane->objectName())
                                            .arg(a)
                                            .arg(b)));
        }
    }

    void placementByHand() {
        // Two 20×10 labels on one point: the first above right, the second above left.
        const std::vector<QPointF> at = {{100, 100}, {100, 100}};
        const std::vector<QSizeF> size = {{20, 10}, {20, 10}};
        std::vector<QRectF> rects;
        const std::vector<int> spot = label_placement::place(at, size, at, 5.0, &rects);
        QCOMPARE(spot, (std::vector<int>{0, 1}));
        QCOMPARE(rects[0], QRectF(107, 85, 20, 10));
        QCOMPARE(rects[1], QRectF(73, 85, 20, 10));
        QVERIFY(!rects[0].intersects(rects[1]));
    }
};

QTEST_MAIN(SmallerFaultsTest)
#include "smaller_faults_test.moc"
