// QtTest: the Views in the main window — one selection shared by every view, several queries
// from the heatmaps, word merging in exports, a second sentence for cross-attention, and the
// Alignment lens on loaded cross-attention. GPL-3.0-or-later.
#include "io/data_dock.hpp"
#include "io/data_io.hpp"
#include "views_test_support.hpp"

using namespace views_test;

class ViewsWindowTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase() { test_support::isolateSettings(); }

    void mainWindowViewsShareTheSelectionAndTheMathPanelSaysSumOrMean() {
        MainWindow w;
        test_support::showWindow(w);
        ViewsTab* tab = w.viewsTab();
        QVERIFY(tab);
        w.tabs()->setCurrentWidget(tab);
        tab->tabs()->setCurrentWidget(tab->tokens()->parentWidget()->parentWidget());
        test_support::settleAll(w.computeService());
        TokensView* tokens = tab->tokens();
        QTest::mouseClick(tokens, Qt::LeftButton, Qt::NoModifier, tokens->sourceRect(2).center());
        QTest::mouseClick(tokens, Qt::LeftButton, Qt::ControlModifier,
                          tokens->sourceRect(6).center());
        QCOMPARE(w.scene()->selection().queries, (std::vector<int>{2, 6}));
        QCOMPARE(tab->lines()->selection().queries, (std::vector<int>{2, 6}));
        QString text = w.mathPanel()->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("2 queries selected")), qPrintable(text.left(300)));
        QVERIFY(text.contains(QStringLiteral("mean")));
        tab->combineBox()->setCurrentIndex(1);
        QVERIFY(w.scene()->selection().sum);
        QVERIFY(w.mathPanel()->toPlainText().contains(QStringLiteral("the sum of their weights")));
        tab->wordsBox()->click();  // the scene's merge, undoable
        QVERIFY(w.scene()->spec().merge_words);
        w.scene()->undoStack()->undo();
        QVERIFY(!tab->wordsBox()->isChecked());
    }

    void heatmapCtrlClickSelectsSeveralQueriesAndTheBarsCombineThem() {
        MainWindow w;
        test_support::showWindow(w);
        HeadHeatmap* h = w.heatmapGrid()->head(1);
        const auto cell = [&](int q, int k) {
            return QPoint(int(h->xAxis->coordToPixel(k)), int(h->yAxis->coordToPixel(q)));
        };
        QTest::mouseClick(h, Qt::LeftButton, Qt::NoModifier, cell(2, 0));
        QTest::mouseClick(h, Qt::LeftButton, Qt::ControlModifier, cell(5, 0));
        QTest::mouseClick(h, Qt::LeftButton, Qt::ControlModifier, cell(8, 0));
        QCOMPARE(w.scene()->selection().queries, (std::vector<int>{2, 5, 8}));
        const attn::Matrix& a = w.result()->heads[1].weights;
        QCPBarsDataContainer* bars = w.weightsBar()->bars()->data().data();
        for (int j = 0; j < a.cols(); ++j)
            QVERIFY(std::abs(bars->at(j)->value - (a(2, j) + a(5, j) + a(8, j)) / 3) < 1e-6);
        QVERIFY(w.weightsBar()->titleText().contains(QStringLiteral("mean of 3 queries")));
        Selection s = w.scene()->selection();
        s.sum = true;
        w.scene()->setSelection(s);
        bars = w.weightsBar()->bars()->data().data();
        QVERIFY(std::abs(bars->at(4)->value - (a(2, 4) + a(5, 4) + a(8, 4))) < 1e-6);
        QTest::mouseClick(h, Qt::LeftButton, Qt::NoModifier, cell(3, 3));  // a plain click: one
        QVERIFY(w.scene()->selection().queries.empty());
        QCOMPARE(w.scene()->selection().query, 3);
    }

    void heatmapKeyLabelClicksSelectOneOrSeveralKeys() {
        MainWindow w;
        test_support::showWindow(w);
        HeadHeatmap* h = w.heatmapGrid()->head(2);
        QTest::mouseClick(h, Qt::LeftButton, Qt::NoModifier,
                          QPoint(int(h->xAxis->coordToPixel(1)), int(h->yAxis->coordToPixel(4))));
        // Below the cells, on column k's label: the key, not a query.
        const int below = h->axisRect()->rect().bottom() + 8;
        const auto label = [&](int k) { return QPoint(int(h->xAxis->coordToPixel(k)), below); };
        QCOMPARE(h->cellAt(label(6)), QPoint(6, -1));
        QTest::mouseClick(h, Qt::LeftButton, Qt::NoModifier, label(6));
        QCOMPARE(w.scene()->selection().key, 6);
        QCOMPARE(w.scene()->selection().query, 4);  // the query stays
        QCOMPARE(w.scene()->selection().head, 2);
        QTest::mouseClick(h, Qt::LeftButton, Qt::ControlModifier, label(2));
        QTest::mouseClick(h, Qt::LeftButton, Qt::ControlModifier, label(9));
        QCOMPARE(w.scene()->selection().keys, (std::vector<int>{2, 6, 9}));
        const attn::Matrix& a = w.result()->heads[2].weights;
        const QString mean = QString::number(double((a(4, 2) + a(4, 6) + a(4, 9)) / 3), 'f', 3);
        QVERIFY2(w.weightsBar()->titleText().contains(mean),
                 qPrintable(w.weightsBar()->titleText()));
        QTest::mouseClick(h, Qt::LeftButton, Qt::ControlModifier, label(6));  // out again
        QCOMPARE(w.scene()->selection().keys, (std::vector<int>{2, 9}));
    }

    void ctrlClickSelectsSeveralKeysAndEveryViewCombinesThem() {
        MainWindow w;
        test_support::showWindow(w);
        ViewsTab* tab = w.viewsTab();
        w.tabs()->setCurrentWidget(tab);
        tab->tabs()->setCurrentWidget(tab->tokens()->parentWidget()->parentWidget());
        test_support::settleAll(w.computeService());
        TokensView* tokens = tab->tokens();
        QTest::mouseClick(tokens, Qt::LeftButton, Qt::NoModifier, tokens->sourceRect(3).center());
        tab->reverseBox()->click();  // clicks now pick keys
        test_support::settleAll(w.computeService());
        QTest::mouseClick(tokens, Qt::LeftButton, Qt::NoModifier, tokens->sourceRect(2).center());
        QTest::mouseClick(tokens, Qt::LeftButton, Qt::ControlModifier,
                          tokens->sourceRect(5).center());
        QCOMPARE(w.scene()->selection().keys, (std::vector<int>{2, 5}));
        QCOMPARE(w.scene()->selection().query, 3);
        const int h = w.scene()->selection().head;
        const attn::Matrix& a = w.result()->heads[std::size_t(h)].weights;
        // Text view, reversed: each query shaded by the mean of its weights on keys 2 and 5.
        const Eigen::RowVectorXf shade = tokens->shading();
        for (int i = 0; i < a.rows(); ++i)
            QVERIFY(std::abs(shade(i) - (a(i, 2) + a(i, 5)) / 2) < 1e-6f);
        const QString mean = QString::number(double((a(3, 2) + a(3, 5)) / 2), 'f', 3);
        QVERIFY2(w.weightsBar()->titleText().contains(QStringLiteral("keys 3, 6: mean ") + mean),
                 qPrintable(w.weightsBar()->titleText()));
        QVERIFY(tab->lines()->keysSummary().contains(mean));
        QString math = w.mathPanel()->toPlainText();
        QVERIFY2(math.contains(QStringLiteral("2 keys selected")) &&
                     math.contains(QString::number(double((a(3, 2) + a(3, 5)) / 2), 'f', 4)),
                 qPrintable(math.left(500)));
        // A ctrl-click on a bar of the weights adds key 7; the sum is the three bars'.
        WeightsBar* bars = w.weightsBar();
        const QPoint bar(int(bars->xAxis->coordToPixel(7)), bars->axisRect()->rect().center().y());
        QTest::mouseClick(bars, Qt::LeftButton, Qt::ControlModifier, bar);
        QCOMPARE(w.scene()->selection().keys, (std::vector<int>{2, 5, 7}));
        tab->combineBox()->setCurrentIndex(1);  // sum
        const QString sum = QString::number(double(a(3, 2) + a(3, 5) + a(3, 7)), 'f', 4);
        math = w.mathPanel()->toPlainText();
        QVERIFY2(math.contains(QStringLiteral("3 keys selected")) && math.contains(sum),
                 qPrintable(math.left(500)));
        // A plain click selects one key again.
        QTest::mouseClick(tokens, Qt::LeftButton, Qt::NoModifier, tokens->sourceRect(1).center());
        QVERIFY(w.scene()->selection().keys.empty());
        QCOMPARE(w.scene()->selection().key, 1);
    }

    void wordsExportAsTheViewsShowThem() {
        MainWindow w;
        fileio::attachDataIo(&w, {});  // the File menu and the Loaded data dock, as the app has
        test_support::showWindow(w);
        auto* files = w.findChild<fileio::FileController*>();
        QVERIFY(files);
        files->setQuiet(true);
        QVERIFY(files->openFile(fixture("gpt2_small_ex0.npz")));
        test_support::settle(w.computeService());
        exporting::ExportController exporter(&w);
        const SceneResultPtr pieces = w.result();
        w.tabs()->setCurrentWidget(w.viewsTab());
        auto* dock = w.findChild<fileio::DataDock*>();
        QVERIFY(dock && dock->isVisible());
        dock->mergeWordsBox()->click();
        test_support::settle(w.computeService());
        QVERIFY(w.result()->merged_words);
        QVERIFY(w.viewsTab()->wordsBox()->isChecked());
        QTemporaryDir dir;
        const attn::WordGroups g = attn::word_groups(pieces->q_tokens);
        QCOMPARE(g.size(), attn::Index(5));  // "empowers" is one word of two pieces
        // The Views tab's numbers and the Heads tab's grid: both the words' weights.
        for (QWidget* view :
             {static_cast<QWidget*>(w.viewsTab()), static_cast<QWidget*>(w.heatmapGrid())}) {
            const QString npy = dir.filePath(QStringLiteral("words.npy"));
            exporting::Options o;
            o.format = exporting::Format::Npy;
            QCOMPARE(exporter.exportView(view, npy, o), QString());
            const attn::AttentionData back = attn::io::load_attention(npy.toStdString());
            const attn::AttentionComponent& c = back.components.at(0);
            QCOMPARE(c.heads, attn::Index(12));
            for (int h : {0, 11}) {
                const attn::Matrix want =
                    attn::merge_words(pieces->heads[std::size_t(h)].weights, g, g);
                QCOMPARE(c.at(0, h).rows(), attn::Index(5));
                QVERIFY((c.at(0, h) - want).cwiseAbs().maxCoeff() < 1e-7f);
            }
        }
        // The math panel says what it shows.
        w.scene()->setSelection(Selection{2, -1, 11});
        const QString math = w.mathPanel()->toPlainText();
        QVERIFY2(math.contains(QStringLiteral("Words, not pieces")) &&
                     math.contains(QStringLiteral("2 “ em”, 3 “powers”")) &&
                     math.contains(QStringLiteral("mean")),
                 qPrintable(math.left(600)));
    }

    void secondSentenceMakesCrossAttention() {
        MainWindow w;
        test_support::showWindow(w);
        QLineEdit* cross = w.tokenEditor()->crossEditor();
        QVERIFY(cross->isVisible());
        cross->setFocus();
        QTest::keyClicks(cross, QStringLiteral("le chat"));
        QCOMPARE(w.scene()->spec().cross_text, std::string());  // applies when done typing
        QTest::keyClick(cross, Qt::Key_Return);
        test_support::settle(w.computeService());
        QCOMPARE(w.scene()->spec().cross_text, std::string("le chat"));
        QCOMPARE(w.result()->k_tokens, (std::vector<std::string>{"le", "chat"}));
        QCOMPARE(w.viewsTab()->lines()->shown().kTokens.size(), std::size_t(2));
        QCOMPARE(int(w.viewsTab()->lines()->shown().weights.cols()), 2);
        w.scene()->undoStack()->undo();  // one undo step back to self-attention
        test_support::settle(w.computeService());
        QVERIFY(w.scene()->spec().cross_text.empty());
        QCOMPARE(cross->text(), QString());
    }

    void alignmentLensUsesLoadedCrossAttention() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("marian.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"attention": [
            {"name": "Encoder", "attn": [[[[0.5, 0.5], [0.5, 0.5]]]],
             "left_text": ["the", "cat"], "right_text": ["the", "cat"]},
            {"name": "Cross", "attn": [[[[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]]]],
             "left_text": ["die", "Katze", "."], "right_text": ["the", "cat"]}]})");
        f.close();
        Scene scene;
        attn::SceneSpec spec;
        spec.data = std::make_shared<const attn::AttentionData>(
            attn::io::load_attention(path.toStdString()));
        scene.resetSpec(spec);
        std::unique_ptr<QWidget> lens(createLens(QStringLiteral("alignment"), &scene));
        auto* panel = qobject_cast<LensPanel*>(lens.get());
        QVERIFY(panel);
        panel->refresh();
        QVERIFY2(panel->readoutText().contains(QStringLiteral("Loaded cross-attention")),
                 qPrintable(panel->readoutText()));
        QVERIFY(panel->readoutText().contains(QStringLiteral("Cross")));
        // The hard alignment: die → the, Katze → cat.
        QVERIFY(panel->readoutText().contains(QStringLiteral("die → the")));
        QVERIFY(panel->readoutText().contains(QStringLiteral("Katze → cat")));
    }
};

QTEST_MAIN(ViewsWindowTest)
#include "views_window_test.moc"
