// The Views tab (head lines, coloured text, neuron, rollout, query–key space) and the census
// table, driven by real mouse events; every number checked against core.
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "app_test_support.hpp"
#include "attn/analysis/census.hpp"
#include "attn/analysis/rollout.hpp"
#include "attn/io/load.hpp"
#include "export/export_controller.hpp"
#include "export/export_options.hpp"
#include "io/file_controller.hpp"
#include "lenses/lens_panel.hpp"
#include "lenses/lens_registry.hpp"
#include "views/census_table.hpp"
#include "views/lines_view.hpp"
#include "views/math_panel.hpp"
#include "views/neuron_view.hpp"
#include "views/qk_view.hpp"
#include "views/rollout_view.hpp"
#include "views/tokens_view.hpp"
#include "views/views_tab.hpp"
#include "views/weights_bar.hpp"
#include "views_test_support.hpp"
#include "widgets/token_editor.hpp"

using namespace views_test;

class ViewsTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void linesHoverShowsOnlyThatQuerysLinesWithCoreWeights() {
        Scene scene;
        const SceneResultPtr r = computed(scene.spec());
        LinesView view;
        view.setResult(r);
        showFollowing(view, scene);
        const int heads = int(r->heads.size());
        const int nk = int(r->k_tokens.size());
        hover(&view, view.queryRect(2).center());
        QCOMPARE(view.hoveredQuery(), 2);
        // "Selected head" (head 1 of the scene's selection): that head's lines alone.
        QCOMPARE(scene.selection().head, 0);
        auto expectedOf = [&](int head) {
            int n = 0;
            for (int j = 0; j < nk; ++j)
                n += r->heads[std::size_t(head)].weights(2, j) >= LinesView::kMinWeight;
            return n;
        };
        auto lines = view.visibleLines();
        QCOMPARE(int(lines.size()), expectedOf(0));
        for (const auto& l : lines) {
            QCOMPARE(l.query, 2);
            QCOMPARE(l.head, 0);
            QCOMPARE(l.weight, r->heads[0].weights(2, l.key));
        }
        // A head's swatch selects that head: its lines alone, with its weights.
        QVERIFY(heads > 2);
        QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, view.swatchRect(2).center());
        QCOMPARE(scene.selection().head, 2);
        hover(&view, view.queryRect(2).center());
        lines = view.visibleLines();
        QCOMPARE(int(lines.size()), expectedOf(2));
        for (const auto& l : lines) {
            QCOMPARE(l.head, 2);
            QCOMPARE(l.weight, r->heads[2].weights(2, l.key));
        }
        QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, view.swatchRect(0).center());
        QCOMPARE(scene.selection().head, 0);
        // Hovering a key shows only the lines into it.
        hover(&view, view.keyRect(4).center());
        QCOMPARE(view.hoveredKey(), 4);
        for (const auto& l : view.visibleLines())
            QCOMPARE(l.key, 4);
    }

    void linesClicksSelectOneOrSeveralQueries() {
        Scene scene;
        LinesView view;
        view.setResult(computed(scene.spec()));
        showFollowing(view, scene);
        QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, view.queryRect(3).center());
        QCOMPARE(scene.selection().query, 3);
        QVERIFY(scene.selection().queries.empty());
        QTest::mouseClick(&view, Qt::LeftButton, Qt::ControlModifier, view.queryRect(5).center());
        QCOMPARE(scene.selection().queries, (std::vector<int>{3, 5}));
        // Shift-click: the range from the last clicked query (5) to this one, as in any list.
        QTest::mouseClick(&view, Qt::LeftButton, Qt::ShiftModifier, view.queryRect(1).center());
        QCOMPARE(scene.selection().queries, (std::vector<int>{1, 2, 3, 4, 5}));
        QTest::mouseClick(&view, Qt::LeftButton, Qt::ControlModifier, view.queryRect(3).center());
        QCOMPARE(scene.selection().queries, (std::vector<int>{1, 2, 4, 5}));
        // Without hover, only the selected queries' lines are drawn.
        hover(&view, QPoint(1, 1));
        for (const auto& l : view.visibleLines())
            QVERIFY(l.query == 1 || l.query == 2 || l.query == 4 || l.query == 5);
        QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, view.keyRect(2).center());
        QCOMPARE(scene.selection().key, 2);
    }

    void linesWorkForRectangularCrossAttention() {
        Scene scene;
        attn::SceneSpec spec;
        spec.text = "the cat sat on the mat";
        spec.cross_text = "le chat";
        const SceneResultPtr r = computed(spec);
        QCOMPARE(int(r->k_tokens.size()), 2);
        LinesView view;
        view.setResult(r);
        showFollowing(view, scene);
        hover(&view, view.keyRect(1).center());
        QCOMPARE(view.hoveredKey(), 1);
        int n = 0;  // the selected head's (head 1) lines into key 1
        for (int i = 0; i < int(r->q_tokens.size()); ++i)
            n += r->heads[0].weights(i, 1) >= LinesView::kMinWeight;
        QCOMPARE(int(view.visibleLines().size()), n);
        // 100+ tokens: the view asks for the height they need (its scroll area scrolls).
        attn::SceneSpec longSpec;
        longSpec.text = QString(QStringLiteral("w ")).repeated(120).toStdString();
        view.setResult(computed(longSpec));
        QVERIFY(view.minimumHeight() >= 120 * 20);
    }

    void tokensShadeByHoveredOrSelectedQueriesAndReverse() {
        Scene scene;
        const SceneResultPtr r = computed(scene.spec());
        TokensView view;
        view.setResult(r);
        showFollowing(view, scene);
        scene.setSelection(Selection{4, -1, 2});
        const attn::Matrix& w = r->heads[2].weights;
        QCOMPARE(view.shading(), Eigen::RowVectorXf(w.row(4)));
        hover(&view, view.sourceRect(6).center());
        QCOMPARE(view.hovered(), 6);
        QCOMPARE(view.shading(), Eigen::RowVectorXf(w.row(6)));
        hover(&view, QPoint(2, 2));
        // Ctrl-click a second query: the mean of the two rows, then the sum.
        QTest::mouseClick(&view, Qt::LeftButton, Qt::ControlModifier, view.sourceRect(7).center());
        QCOMPARE(scene.selection().queries, (std::vector<int>{4, 7}));
        const Eigen::RowVectorXf mean = (w.row(4) + w.row(7)) / 2;
        QVERIFY((view.shading() - mean).cwiseAbs().maxCoeff() < 1e-6f);
        Selection s = scene.selection();
        s.sum = true;
        scene.setSelection(s);
        QVERIFY((view.shading() - 2 * mean).cwiseAbs().maxCoeff() < 1e-6f);
        // Mean over heads.
        ViewOptions o;
        o.reduce = attn::HeadReduce::Mean;
        view.setOptions(o);
        const attn::Matrix m = attn::reduced_weights(*r, attn::HeadReduce::Mean, 0);
        QVERIFY((view.shading() - (m.row(4) + m.row(7))).cwiseAbs().maxCoeff() < 1e-6f);
        // Reverse: how much each query attends to the selected key.
        o = {};
        o.reverse = true;
        view.setOptions(o);
        QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, view.sourceRect(1).center());
        QCOMPARE(scene.selection().key, 1);
        QCOMPARE(view.shading(), Eigen::RowVectorXf(w.col(1).transpose()));
    }

    void wordsMergeKeysSummedQueriesAveraged() {
        Scene scene;
        attn::SceneSpec spec = fileSpec("gpt2_small_ex0.npz", 1);
        const SceneResultPtr pieces = computed(spec);
        spec.merge_words = true;  // the scene's merge: every view gets words × words
        const SceneResultPtr r = computed(spec);
        TokensView view;
        view.setResult(r);
        showFollowing(view, scene);
        scene.setSelection(Selection{2, -1, 0});  // the word "empowers" (" em" + "powers")
        QCOMPARE(view.shown().kTokens,
                 (std::vector<std::string>{"Data", "visualization", "empowers", "users", "to"}));
        QVERIFY(view.shown().merged);
        const attn::Matrix& w = pieces->heads[0].weights;
        // Word "empowers" = tokens 2 and 3: its row averages their rows, keys summed.
        const float fromEmpowersToData = (w(2, 0) + w(3, 0)) / 2;
        const float toEmpowers = (w(2, 2) + w(2, 3) + w(3, 2) + w(3, 3)) / 2;
        QCOMPARE(view.shading()(0), fromEmpowersToData);
        QCOMPARE(view.shading()(2), toEmpowers);
        QVERIFY(std::abs(view.shading().sum() - 1.f) < 1e-5f);
    }

    void neuronStripsAreCoreVectors() {
        Scene scene;
        const SceneResultPtr r = computed(scene.spec());
        NeuronView view;
        view.setResult(r);
        showFollowing(view, scene);
        scene.setSelection(Selection{5, -1, 1});
        QVERIFY(view.message().isEmpty());
        for (int j : {0, 3, 9}) {
            const attn::NeuronVectors v = view.row(j);
            const auto d = r->d_k;
            QCOMPARE(v.q, Eigen::RowVectorXf(r->Q.block(5, 1 * d, 1, d)));
            QCOMPARE(v.k, Eigen::RowVectorXf(r->K.block(j, 1 * d, 1, d)));
            QCOMPARE(v.raw, r->heads[1].raw(5, j));
            QVERIFY(std::abs(v.product.sum() - v.raw) < 1e-4f);
            QCOMPARE(v.weight, r->heads[1].weights(5, j));
        }
        QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, view.keyStrip(3).center());
        QCOMPARE(scene.selection().key, 3);
        // Two queries: the view shows their mean (then sum) q, scores and weights.
        scene.setSelection(Selection{5, 3, 1}.withQueryToggled(8));
        const Eigen::RowVectorXf both =
            attn::combined_row(r->heads[1].weights, {5, 8}, attn::Combine::Mean);
        QVERIFY(std::abs(view.row(4).weight - both(4)) < 1e-7f);
        QVERIFY(std::abs(view.row(4).raw - (r->heads[1].raw(5, 4) + r->heads[1].raw(8, 4)) / 2) <
                1e-5f);
        Selection summed = scene.selection();
        summed.sum = true;
        scene.setSelection(summed);
        QVERIFY(std::abs(view.row(4).weight - 2 * both(4)) < 1e-6f);
        scene.setSelection(Selection{50, 60, 1});  // from a longer scene, not yet clamped
        QVERIFY(view.message().contains(QStringLiteral("Select a query")));
        view.setResult(computed(fileSpec("gpt2_small_ex0.npz", 1)));  // weights only
        QVERIFY(view.message().contains(QStringLiteral("q and k")));
    }

    void qkDraggingAQueryUpdatesItsWeightsLiveAndResetReturnsIt() {
        Scene scene;
        const SceneResultPtr r = computed(scene.spec());
        QkView view;
        view.setResult(r);
        showFollowing(view, scene);
        scene.setSelection(Selection{1, -1, 0});
        const QPoint from = view.queryPoint(3).toPoint();
        drag(&view, from, from + QPoint(60, -40));
        QCOMPARE(scene.selection().query, 3);  // pressing a query selects it
        QCOMPARE(view.movedQuery(), 3);
        const QPointF off = view.offset();
        QVERIFY(off.manhattanLength() > 0);
        const Eigen::RowVectorXf want = attn::weights_for_query(
            *r, 0, 3, attn::moved_query(*r, view.projection(), 0, 3, off.x(), off.y()));
        QCOMPARE(view.liveWeights(), want);
        QVERIFY((want - r->heads[0].weights.row(3)).cwiseAbs().maxCoeff() > 1e-3f);
        QVERIFY(std::abs(want.sum() - 1.f) < 1e-5f);
        auto* reset = view.findChild<QPushButton*>();
        QVERIFY(reset && reset->isEnabled());
        QTest::mouseClick(reset, Qt::LeftButton);
        QCOMPARE(view.movedQuery(), -1);
        QVERIFY((view.liveWeights() - r->heads[0].weights.row(3)).cwiseAbs().maxCoeff() < 1e-6f);
        // Ctrl-click a second query: the weights shown are the two rows' mean, then their sum.
        QTest::mouseClick(&view, Qt::LeftButton, Qt::ControlModifier, view.queryPoint(6).toPoint());
        QCOMPARE(scene.selection().queries, (std::vector<int>{3, 6}));
        QCOMPARE(view.movedQuery(), -1);  // a ctrl-click picks, it does not drag
        const Eigen::RowVectorXf mean =
            attn::combined_row(r->heads[0].weights, {3, 6}, attn::Combine::Mean);
        QVERIFY((view.liveWeights() - mean).cwiseAbs().maxCoeff() < 1e-6f);
        Selection summed = scene.selection();
        summed.sum = true;
        scene.setSelection(summed);
        QVERIFY((view.liveWeights() - 2 * mean).cwiseAbs().maxCoeff() < 1e-6f);
    }

    void rolloutMatchesCoreAndFollowsClicks() {
        Scene scene;
        scene.resetSpec(fileSpec("gpt2_small_ex0.npz", 1));
        RolloutView view(&scene);
        showFollowing(view, scene);
        view.refreshNow();
        const std::vector<attn::MatrixD> core = attn::rollout(scene.spec());
        QVERIFY2(view.data().error.isEmpty(), qPrintable(view.data().error));
        QCOMPARE(view.data().layers.size(), std::size_t(12));
        QCOMPARE(view.layer(), 11);
        QCOMPARE(view.shownMatrix(), core[11]);
        QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, view.cellRect(5, 2).center());
        QCOMPARE(scene.selection().query, 5);
        QCOMPARE(view.bars(), Eigen::RowVectorXd(core[11].row(5)));
        QVERIFY(std::abs(view.bars()(0) - 0.99380585) < 1e-6);  // numpy, the attention sink
        QCOMPARE(scene.selection().key, 2);  // a plain click on a cell: its column is the input
        QVERIFY(std::abs(view.selectedInputsFeed() - core[11](5, 2)) < 1e-12);
        // Hovering a cell names it and its value, to 6 places.
        hover(&view, view.cellRect(4, 1).center());
        QVERIFY2(view.hoverText().contains(QString::number(core[11](4, 1), 'f', 6)),
                 qPrintable(view.hoverText()));
        QVERIFY(view.hoverText().contains(QStringLiteral("output “")));
        QCOMPARE(view.toolTip(), view.hoverText());
        QVERIFY(view.findChild<QLabel*>()->text().contains(
            QStringLiteral("= ") + QString::number(core[11](4, 1), 'f', 6)));
        // Ctrl-click on two bars (input tokens): the keys, and what they feed together.
        const auto barCentre = [&](int j) {
            for (int y = 0; y < view.height(); ++y)
                for (int x = view.width() / 2; x < view.width(); x += 7)
                    if (view.barAt(QPoint(x, y)) == j) return QPoint(x + 20, y + 2);
            return QPoint(-1, -1);
        };
        QTest::mouseClick(&view, Qt::LeftButton, Qt::ControlModifier, barCentre(0));
        QTest::mouseClick(&view, Qt::LeftButton, Qt::ControlModifier, barCentre(4));
        QCOMPARE(scene.selection().keys, (std::vector<int>{0, 2, 4}));
        const double mean = (core[11](5, 0) + core[11](5, 2) + core[11](5, 4)) / 3;
        QVERIFY(std::abs(view.selectedInputsFeed() - mean) < 1e-12);
        QVERIFY(view.inputsSummary().contains(QStringLiteral("3 selected inputs feed ") +
                                              QString::number(mean, 'f', 4)));
        Selection summed = scene.selection();
        summed.sum = true;
        scene.setSelection(summed);
        QVERIFY(std::abs(view.selectedInputsFeed() - 3 * mean) < 1e-12);
        view.setLayer(3);
        QCOMPARE(view.shownMatrix(), core[3]);
        // Cross-attention is refused with a message.
        attn::SceneSpec cross;
        cross.cross_text = "x y";
        scene.resetSpec(cross);
        view.refreshNow();
        QVERIFY(view.data().error.contains(QStringLiteral("self-attention")));
    }

    void censusTableSortsAndFilters() {
        Scene scene;
        scene.resetSpec(fileSpec("gpt2_small_ex0.npz", 0));
        CensusTable table(&scene);
        table.resize(900, 600);
        table.show();
        QVERIFY(QTest::qWaitForWindowExposed(&table));
        table.refreshNow();
        QTableWidget* t = table.table();
        QCOMPARE(t->rowCount(), 144);
        const attn::Census core = attn::census(scene.spec());
        int previous = 0;
        for (const auto& e : core.entries)
            previous += e.label == attn::HeadPattern::PreviousToken;
        table.filterBox()->setCurrentIndex(
            table.filterBox()->findText(QStringLiteral("previous-token")));
        QCOMPARE(table.visibleRows(), previous);
        // Sort by previous_token, largest first, with a click on its header twice.
        table.filterBox()->setCurrentIndex(0);
        QHeaderView* header = t->horizontalHeader();
        const int col = 4;  // previous_token
        const QPoint at(header->sectionViewportPosition(col) + 5, header->height() / 2);
        QTest::mouseClick(header->viewport(), Qt::LeftButton, Qt::NoModifier, at);
        if (header->sortIndicatorOrder() != Qt::DescendingOrder)
            QTest::mouseClick(header->viewport(), Qt::LeftButton, Qt::NoModifier, at);
        QCOMPARE(t->item(0, 1)->text(), QStringLiteral("5"));  // layer 4, head 11 from 0
        QCOMPARE(t->item(0, 2)->text(), QStringLiteral("12"));
        QCOMPARE(t->item(0, 4)->text(), QStringLiteral("1.000"));  // 0.99986
        QCOMPARE(t->item(0, 3)->text(), QStringLiteral("previous-token"));
        QVERIFY(t->horizontalHeaderItem(1)->toolTip().contains(QStringLiteral("from 1")));
        QSignalSpy opened(&table, &CensusTable::headActivated);
        // A user's double-click: a click, then the second press arriving as a double-click.
        const QPoint cell = t->visualItemRect(t->item(0, 3)).center();
        QTest::mouseClick(t->viewport(), Qt::LeftButton, Qt::NoModifier, cell);
        QTest::mouseDClick(t->viewport(), Qt::LeftButton, Qt::NoModifier, cell);
        QCOMPARE(opened.count(), 1);
        QCOMPARE(opened.at(0).at(0).toInt(), 4);
        QCOMPARE(opened.at(0).at(1).toInt(), 11);
    }
};

QTEST_MAIN(ViewsTest)
#include "views_test.moc"
