// Clicking a cell or a row label selects it in every head, in the weights bar and in the math
// panel, with the numbers core computes.
#include <QTest>

#include "app_test_support.hpp"
#include "views/math_panel.hpp"
#include "views/weights_bar.hpp"

class SelectionTest : public QObject {
    Q_OBJECT
    std::unique_ptr<MainWindow> w_;

    QPoint cellPixel(HeadHeatmap* h, int q, int k) {
        return {int(h->xAxis->coordToPixel(k)), int(h->yAxis->coordToPixel(q))};
    }

    void expectEverywhere(int q, int k, int head) {
        QCOMPARE(w_->scene()->selection(), (Selection{q, k, head}));
        HeatmapGrid* g = w_->heatmapGrid();
        for (int h = 0; h < g->headCount(); ++h) {
            HeadHeatmap* hm = g->head(h);
            QCOMPARE(hm->selection(), (Selection{q, k, head}));
            QVERIFY(hm->selectedRowItem()->visible());
            QVERIFY(hm->selectedCellItem()->visible());
            QCOMPARE(hm->selectedCellItem()->topLeft->coords(), QPointF(k - 0.5, q - 0.5));
        }
        const attn::SceneResult core = attn::compute_scene(w_->scene()->spec());
        const attn::HeadResult& hr = core.heads[std::size_t(head)];
        // Weights bar: the selected query's row of the selected head.
        QCPBarsDataContainer* bars = w_->weightsBar()->bars()->data().data();
        QCOMPARE(bars->size(), int(hr.weights.cols()));
        for (int j = 0; j < hr.weights.cols(); ++j)
            QCOMPARE(float(bars->at(j)->value), hr.weights(q, j));
        // Math panel: every stage's numbers for this query, and q's first coordinate.
        const QString text = w_->mathPanel()->toPlainText();
        for (int j = 0; j < hr.weights.cols(); ++j) {
            for (double v :
                 {double(hr.raw(q, j)), double(hr.scaled_row(q)(j)), double(hr.weights(q, j))})
                QVERIFY2(
                    text.contains(mathNumber(v)),
                    qPrintable(QStringLiteral("missing %1 (key %2)").arg(mathNumber(v)).arg(j)));
        }
        const QString q0 = QString::number(core.Q(q, attn::Index(head) * core.d_k), 'f', 3);
        QVERIFY2(text.contains(q0), qPrintable(q0));
        QVERIFY(text.contains(QStringLiteral("head %1").arg(head + 1)));
        const QString out0 = QString::number(hr.output(q, 0), 'f', 3);
        QVERIFY2(text.contains(out0), qPrintable(out0));
    }

  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }
    void init() {
        w_ = std::make_unique<MainWindow>();
        test_support::showWindow(*w_);
    }
    void cleanup() { w_.reset(); }

    void clickCellSelectsEverywhere() {
        HeadHeatmap* h2 = w_->heatmapGrid()->head(2);
        QTest::mouseClick(h2, Qt::LeftButton, {}, cellPixel(h2, 5, 9));
        expectEverywhere(5, 9, 2);
        QVERIFY(w_->weightsBar()->titleText().contains(QStringLiteral("Head 3")));
    }

    void clickRowLabelSelectsQuery() {
        HeadHeatmap* h1 = w_->heatmapGrid()->head(1);
        const QPoint label(h1->axisRect()->left() - 10, cellPixel(h1, 7, 0).y());
        QTest::mouseClick(h1, Qt::LeftButton, {}, label);
        QCOMPARE(w_->scene()->selection().query, 7);
        QCOMPARE(w_->scene()->selection().head, 1);
        expectEverywhere(7, w_->scene()->selection().key, 1);
    }

    // Issue 26, item 7: shift-click selects a range, ctrl-click toggles, and every selected
    // query is outlined in every head (not only the last one clicked).
    void everySelectedQueryIsOutlinedInEveryHead() {
        HeatmapGrid* g = w_->heatmapGrid();
        HeadHeatmap* h1 = g->head(1);
        QTest::mouseClick(h1, Qt::LeftButton, Qt::NoModifier, cellPixel(h1, 2, 0));
        QTest::mouseClick(h1, Qt::LeftButton, Qt::ShiftModifier, cellPixel(h1, 5, 0));
        QCOMPARE(w_->scene()->selection().queries, (std::vector<int>{2, 3, 4, 5}));
        QCOMPARE(w_->scene()->selection().query, 5);
        HeadHeatmap* h3 = g->head(3);
        QTest::mouseClick(h3, Qt::LeftButton, Qt::ControlModifier, cellPixel(h3, 4, 0));
        QCOMPARE(w_->scene()->selection().queries, (std::vector<int>{2, 3, 5}));
        for (int h = 0; h < g->headCount(); ++h)
            QCOMPARE(g->head(h)->outlinedQueries(), (std::vector<int>{2, 3, 5}));
        // Ctrl-click adds one back; a plain click leaves one query, one outline.
        QTest::mouseClick(h3, Qt::LeftButton, Qt::ControlModifier, cellPixel(h3, 9, 0));
        for (int h = 0; h < g->headCount(); ++h)
            QCOMPARE(g->head(h)->outlinedQueries(), (std::vector<int>{2, 3, 5, 9}));
        QTest::mouseClick(h1, Qt::LeftButton, Qt::NoModifier, cellPixel(h1, 7, 1));
        for (int h = 0; h < g->headCount(); ++h)
            QCOMPARE(g->head(h)->outlinedQueries(), std::vector<int>{7});
    }

    void keyboardMovesSelection() {
        w_->scene()->setSelection(Selection{3, 3, 0});
        QTest::keyClick(w_->heatmapGrid(), Qt::Key_Down);
        QTest::keyClick(w_->heatmapGrid(), Qt::Key_Right);
        QTest::keyClick(w_->heatmapGrid(), Qt::Key_Right);
        expectEverywhere(4, 5, 0);
    }

    void selectionFollowsAfterRecompute() {
        w_->scene()->setSelection(Selection{12, 12, 3});
        attn::SceneSpec s = w_->scene()->spec();
        s.text = "A short one .";
        s.heads = 2;
        w_->scene()->setSpec(s, QStringLiteral("shorter"));
        test_support::settle(w_->computeService());
        expectEverywhere(3, 3, 1);  // clamped into the smaller result
    }

    void doubleClickFocusesAndEscapeReturns() {
        HeatmapGrid* g = w_->heatmapGrid();
        HeadHeatmap* h3 = g->head(3);
        QTest::mouseDClick(h3, Qt::LeftButton, {}, cellPixel(h3, 2, 2));
        QCOMPARE(g->focusedHead(), 3);
        QVERIFY(h3->isVisible());
        QVERIFY(!g->head(0)->isVisible());
        QVERIFY(h3->width() > g->width() / 2);
        QTest::keyClick(g, Qt::Key_Escape);
        QCOMPARE(g->focusedHead(), -1);
        for (int h = 0; h < g->headCount(); ++h)
            QVERIFY(g->head(h)->isVisible());
    }

    void hoverDescribesTheCell() {
        HeadHeatmap* h0 = w_->heatmapGrid()->head(0);
        const attn::SceneResult core = attn::compute_scene(w_->scene()->spec());
        const QString text = h0->cellDescription(1, 4);
        QVERIFY(text.contains(QStringLiteral("agreement")));
        QVERIFY(text.contains(QStringLiteral("European")));
        QVERIFY(text.contains(QString::number(core.heads[0].raw(1, 4), 'f', 4)));
        QVERIFY(text.contains(QString::number(core.heads[0].scaled_row(1)(4), 'f', 4)));
        QVERIFY(text.contains(QString::number(core.heads[0].weights(1, 4), 'f', 4)));
        QCOMPARE(h0->cellAt(cellPixel(h0, 1, 4)), QPoint(4, 1));
    }

    void longSequenceRowsAreRecomputedForTheMath() {
        // Long enough that the scene keeps weights only: hover, weights bar and math panel
        // must show the numbers of the full computation all the same.
        attn::SceneSpec spec;
        std::string text;
        for (int i = 0; i < 1100; ++i) {
            (text += "t") += std::to_string(i % 61);
            text += ' ';
        }
        spec.text = text;
        spec.heads = 8;
        spec.mask.kind = attn::MaskKind::Causal;
        w_->scene()->resetSpec(spec);
        test_support::settle(w_->computeService());
        QVERIFY(w_->result()->storage != attn::Storage::Stages);
        const int q = 900, k = 650, head = 6;
        w_->scene()->setSelection(Selection{q, k, head});
        QCoreApplication::processEvents();
        const attn::SceneResult core = attn::compute_scene(w_->scene()->spec());
        const attn::HeadResult& hr = core.heads[std::size_t(head)];
        const QString text2 = w_->mathPanel()->toPlainText();
        for (double v : {double(hr.raw(q, k)), double(hr.scaled_row(q)(k)),
                         double(hr.weights(q, k)), double(hr.output(q, 0))})
            QVERIFY2(text2.contains(mathNumber(v)) || text2.contains(QString::number(v, 'f', 3)),
                     qPrintable(QStringLiteral("missing %1").arg(v)));
        const QString hover = w_->heatmapGrid()->head(head)->cellDescription(q, k);
        QVERIFY2(hover.contains(QStringLiteral("raw score")), qPrintable(hover));
        QVERIFY(w_->heatmapGrid()->head(head)->cellDescription(q, q + 1).contains(
            QStringLiteral("masked")));
    }
};

QTEST_MAIN(SelectionTest)
#include "selection_test.moc"
