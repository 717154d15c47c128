// QtTest: every intervention has a visible way in, and every label numbers alike (issue 37,
// items 2 and 6), with real events on a tiny random GPT-2 (3 layers × 2 heads). A right click
// through the window on a head of the Heads tab opens that head's and cell's menu; the Menu key
// opens the selected head's and cell's; the Interventions tab's first page lists the ablations
// and knockouts in effect, adds one from its fields, removes one (Delete, one undo step) and
// runs the induction test, whose table is core's scores; the hover line, the menus, the undo
// text, the head's title and the Model tab count layers, heads, queries and keys from 1.
#include <QContextMenuEvent>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/interventions/induction.hpp"
#include "attn/models/vocabulary.hpp"
#include "attn/scene/model_scene.hpp"
#include "tiny_folders.hpp"
#include "views/head_heatmap.hpp"
#include "views/heatmap_grid.hpp"
#include "views/model_grid.hpp"
#include "views/model_grid_canvas.hpp"

namespace {

/// The pixel (HEAD's coordinates) of cell (QUERY, KEY), found as a user finds it: by looking.
QPoint cellPixel(HeadHeatmap* head, int query, int key) {
    for (int y = 0; y < head->height(); ++y)
        for (int x = 0; x < head->width(); ++x)
            if (head->cellAt({x, y}) == QPoint(key, query)) return {x + 2, y + 2};
    return {};
}

/// Presses and releases BUTTON at POS of WIDGET through its window, as the window system
/// delivers a click: a right click there makes Qt's context menu event.
void clickThroughWindow(QWidget* widget, Qt::MouseButton button, const QPoint& pos) {
    QWindow* window = widget->window()->windowHandle();
    QTest::mouseClick(window, button, {}, window->mapFromGlobal(widget->mapToGlobal(pos)));
}

/// Moves the mouse to POS of WIDGET through its window.
void moveThroughWindow(QWidget* widget, const QPoint& pos) {
    QWindow* window = widget->window()->windowHandle();
    QTest::mouseMove(window, window->mapFromGlobal(widget->mapToGlobal(pos)));
}

/// The texts of the popup menu on show ("" entries for separators), waiting for it.
QStringList popupTexts(QMenu** shown = nullptr) {
    QMenu* menu = nullptr;
    if (!QTest::qWaitFor(
            [&] { return (menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())); },
            10000))
        return {QStringLiteral("(no menu opened)")};
    QStringList texts;
    for (QAction* a : menu->actions())
        texts << a->text();
    if (shown) *shown = menu;
    return texts;
}

void closePopup() {
    if (QWidget* popup = QApplication::activePopupWidget()) popup->close();
    QTRY_VERIFY(!QApplication::activePopupWidget());
}

/// Core's induction scores [layers, heads] of SPEC's run on the test the window runs: half the
/// model's positions (at most 50) of random tokens (seed 0), after <|endoftext|> when known.
attn::Matrix coreInductionScores(const attn::SceneSpec& spec) {
    const attn::model::ModelInfo& info = spec.model->model->info();
    const std::optional<std::int32_t> bos = spec.model->tokenizer->token_id("<|endoftext|>");
    const attn::Index half = std::min<attn::Index>(50, (info.max_positions - (bos ? 1 : 0)) / 2);
    const attn::interv::InductionSequence seq =
        attn::interv::induction_sequence(int(attn::model::text_vocab(info)), half, 0, bos);
    const attn::model::Run run =
        attn::model::run(*spec.model->model, seq.ids, attn::model::run_controls(spec));
    return attn::interv::induction_scores(run, seq);
}

template <class T>
T* named(QWidget* in, const char* name) {
    return in ? in->findChild<T*>(QString::fromLatin1(name)) : nullptr;
}

}  // namespace

class InterventionReachTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeInterventionReachTest"));
        QVERIFY(dir_.isValid());
        const QString error = test_support::writeTinyGpt2(dir_.path());
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void init() {
        w_ = std::make_unique<MainWindow>();
        models_ = test_support::attachQuietModels(*w_);
        QVERIFY(models_);
        QVERIFY(models_->openModel(dir_.path()));
        QCOMPARE(test_support::typeSentence(*w_, QStringLiteral("the cat sat")), QString());
        w_->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(w_.get()));
    }

    void cleanup() {
        closePopup();
        w_.reset();
    }

    void rightClickOnAHeadOpensItsMenu() {
        HeatmapGrid* grid = w_->heatmapGrid();
        QTRY_VERIFY(grid->isVisible());
        HeadHeatmap* head = grid->head(1);
        QVERIFY(head->rowCount() >= 4);
        const QPoint at = cellPixel(head, 3, 2);
        QVERIFY(!at.isNull());
        clickThroughWindow(head, Qt::RightButton, at);
        const QStringList texts = popupTexts();
        QCOMPARE(texts.value(0), QStringLiteral("Ablate layer 1, head 2"));
        QVERIFY2(texts.contains(QStringLiteral("Knock out this edge (query 4 → key 3)")),
                 qPrintable(texts.join(QLatin1Char('|'))));
        QVERIFY2(texts.contains(QStringLiteral("Knock out key column 3")),
                 qPrintable(texts.join(QLatin1Char('|'))));
    }

    void menuKeyOpensTheSelectedHeadAndCell() {
        HeatmapGrid* grid = w_->heatmapGrid();
        QTRY_VERIFY(grid->isVisible());
        HeadHeatmap* head = grid->head(0);
        const QPoint at = cellPixel(head, 4, 1);
        QVERIFY(!at.isNull());
        clickThroughWindow(head, Qt::LeftButton, at);
        QTRY_COMPARE(w_->scene()->selection().query, 4);
        QCOMPARE(w_->scene()->selection().key, 1);
        QCOMPARE(w_->scene()->selection().head, 0);
        grid->setFocus();
        QTRY_VERIFY(grid->hasFocus());
        // The Menu key on the grid: the selected head's and cell's menu.
        QTest::keyClick(grid, Qt::Key_Menu);
        QStringList texts = popupTexts();
        QCOMPARE(texts.value(0), QStringLiteral("Ablate layer 1, head 1"));
        QVERIFY2(texts.contains(QStringLiteral("Knock out this edge (query 5 → key 2)")),
                 qPrintable(texts.join(QLatin1Char('|'))));
        closePopup();
        // The window system's keyboard context menu event (X11 sends one for the Menu key), at
        // the focus widget's centre as Qt places it: still the selected head and cell.
        const QPoint centre = grid->rect().center();
        QContextMenuEvent key(QContextMenuEvent::Keyboard, centre, grid->mapToGlobal(centre));
        QApplication::sendEvent(grid, &key);
        texts = popupTexts();
        QVERIFY2(texts.contains(QStringLiteral("Knock out this edge (query 5 → key 2)")),
                 qPrintable(texts.join(QLatin1Char('|'))));
    }

    void interventionsTabListsAddsAndRemoves() {
        QWidget* page = openInEffectPage();
        QVERIFY2(page, "no page of the interventions in effect on the Interventions tab");
        auto* list = named<QListWidget>(page, "interventionsInEffect");
        auto* empty = named<QLabel>(page, "interventionsEmpty");
        auto* ablateLayer = named<QSpinBox>(page, "ablateLayer");
        auto* ablateHead = named<QSpinBox>(page, "ablateHead");
        auto* knock = named<QSpinBox>(page, "knockLayer");
        QVERIFY(list && empty && ablateLayer && ablateHead && knock);
        QVERIFY(empty->isVisible());
        QCOMPARE(list->count(), 0);
        QCOMPARE(ablateLayer->maximum(), 3);
        QCOMPARE(ablateHead->maximum(), 2);

        // Ablate layer 2, head 1: typed into the fields, then the button.
        setBox(ablateLayer, 2);
        setBox(ablateHead, 1);
        QTest::mouseClick(named<QPushButton>(page, "addAblation"), Qt::LeftButton);
        QTRY_COMPARE(w_->scene()->spec().interventions.ablated,
                     (std::vector<attn::model::Site>{{attn::model::kSingleStack, 1, 0}}));
        QCOMPARE(w_->scene()->undoStack()->undoText(), QStringLiteral("Ablate layer 2, head 1"));
        // Knock out query 3 → key 1 in layer 1, head 2.
        setBox(knock, 1);
        setBox(named<QSpinBox>(page, "knockHead"), 2);
        setBox(named<QSpinBox>(page, "knockQuery"), 3);
        setBox(named<QSpinBox>(page, "knockKey"), 1);
        QTest::mouseClick(named<QPushButton>(page, "addKnockout"), Qt::LeftButton);
        QTRY_COMPARE(
            w_->scene()->spec().interventions.knockouts,
            (std::vector<attn::model::Knockout>{{{attn::model::kSingleStack, 0, 1}, 2, 0}}));
        QCOMPARE(w_->scene()->undoStack()->undoText(),
                 QStringLiteral("Knock out query 3 → key 1 in layer 1, head 2"));
        QCOMPARE(list->count(), 2);
        QCOMPARE(list->item(0)->text(), QStringLiteral("Ablated: layer 2, head 1"));
        QCOMPARE(list->item(0)->toolTip(), QStringLiteral("On the command line: --ablate 1.0"));
        QCOMPARE(list->item(1)->text(),
                 QStringLiteral("Knocked out: query 3 → key 1 in layer 1, head 2"));
        QCOMPARE(list->item(1)->toolTip(),
                 QStringLiteral("On the command line: --knockout 0.1:2>0"));
        QVERIFY(!empty->isVisible());

        // The head's title says the same edge, counted as the menu counts it.
        test_support::settle(w_->computeService());
        QVERIFY2(
            w_->heatmapGrid()->head(1)->titleText().contains(QStringLiteral("knocked out 3→1")),
            qPrintable(w_->heatmapGrid()->head(1)->titleText()));

        // Delete on the selected ablation restores the head, one undo step; Ctrl+Z brings it
        // back; Remove takes the knockout.
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                          list->visualItemRect(list->item(0)).center());
        QTRY_COMPARE(list->currentRow(), 0);
        QTest::keyClick(list, Qt::Key_Delete);
        QTRY_VERIFY(w_->scene()->spec().interventions.ablated.empty());
        QCOMPARE(w_->scene()->undoStack()->undoText(), QStringLiteral("Restore layer 2, head 1"));
        QCOMPARE(list->count(), 1);
        QTest::keyClick(list, Qt::Key_Z, Qt::ControlModifier);
        QTRY_COMPARE(w_->scene()->spec().interventions.ablated,
                     (std::vector<attn::model::Site>{{attn::model::kSingleStack, 1, 0}}));
        QCOMPARE(list->count(), 2);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                          list->visualItemRect(list->item(1)).center());
        QTRY_COMPARE(list->currentRow(), 1);
        QTest::mouseClick(named<QPushButton>(page, "removeIntervention"), Qt::LeftButton);
        QTRY_VERIFY(w_->scene()->spec().interventions.knockouts.empty());
        QCOMPARE(list->count(), 1);
    }

    void inductionTestFromTheGui() {
        QWidget* page = openInEffectPage();
        QVERIFY2(page, "no page of the interventions in effect on the Interventions tab");
        auto* run = named<QPushButton>(page, "runInduction");
        auto* table = named<QTableWidget>(page, "inductionTable");
        auto* status = named<QLabel>(page, "inductionStatus");
        QVERIFY(run && table && status);
        QTRY_VERIFY(run->isVisible() && run->isEnabled());
        QTest::mouseClick(run, Qt::LeftButton);
        QVERIFY2(QTest::qWaitFor([&] { return table->rowCount() > 0; }, 60000),
                 qPrintable(status->text()));
        // The table is core's scores of the same test (the command line's census --induction).
        const attn::Matrix scores = coreInductionScores(w_->scene()->spec());
        std::vector<std::pair<int, int>> heads;
        for (int l = 0; l < scores.rows(); ++l)
            for (int h = 0; h < scores.cols(); ++h)
                heads.push_back({l, h});
        std::stable_sort(heads.begin(), heads.end(), [&](const auto& a, const auto& b) {
            return scores(a.first, a.second) > scores(b.first, b.second);
        });
        QCOMPARE(table->rowCount(), 6);  // 3 layers × 2 heads, all shown
        for (int r = 0; r < table->rowCount(); ++r) {
            const auto [l, h] = heads[std::size_t(r)];
            QCOMPARE(table->item(r, 0)->text(), QString::number(l + 1));
            QCOMPARE(table->item(r, 1)->text(), QString::number(h + 1));
            QCOMPARE(table->item(r, 2)->text(), QString::number(double(scores(l, h)), 'f', 3));
        }
        QVERIFY2(status->text().startsWith(QStringLiteral("The 6 highest of 6")),
                 qPrintable(status->text()));
        for (int r = 0; r < table->rowCount(); ++r)
            QVERIFY(!table->item(r, 1)->text().contains(QStringLiteral("ablated")));

        // With layer 2, head 1 ablated the test runs as changed, and that head's row says so.
        setBox(named<QSpinBox>(page, "ablateLayer"), 2);
        setBox(named<QSpinBox>(page, "ablateHead"), 1);
        QTest::mouseClick(named<QPushButton>(page, "addAblation"), Qt::LeftButton);
        QTRY_COMPARE(w_->scene()->spec().interventions.ablated,
                     (std::vector<attn::model::Site>{{attn::model::kSingleStack, 1, 0}}));
        QTRY_VERIFY(run->isEnabled());
        QTest::mouseClick(run, Qt::LeftButton);
        QVERIFY2(QTest::qWaitFor([&] { return status->text().contains(QStringLiteral("ablated")); },
                                 60000),
                 qPrintable(status->text()));
        const attn::Matrix ablatedScores = coreInductionScores(w_->scene()->spec());
        int marked = 0;
        for (int r = 0; r < table->rowCount(); ++r) {
            const bool isAblated = table->item(r, 0)->text() == QStringLiteral("2") &&
                                   table->item(r, 1)->text().startsWith(QStringLiteral("1"));
            QCOMPARE(table->item(r, 1)->text().endsWith(QStringLiteral("(ablated)")), isAblated);
            marked += isAblated ? 1 : 0;
            if (isAblated)
                QCOMPARE(table->item(r, 2)->text(),
                         QString::number(double(ablatedScores(1, 0)), 'f', 3));
        }
        QCOMPARE(marked, 1);
        QVERIFY2(status->text().endsWith(QStringLiteral("Run with 1 head ablated, marked below.")),
                 qPrintable(status->text()));
    }

    void everyLabelCountsFromOne() {
        HeatmapGrid* grid = w_->heatmapGrid();
        QTRY_VERIFY(grid->isVisible());
        HeadHeatmap* head = grid->head(1);
        // The hover line: head 2, query 4, key 3 for the cell of index (3, 2).
        const QPoint at = cellPixel(head, 3, 2);
        moveThroughWindow(head, at);
        QTRY_VERIFY2(grid->readout()->fullText().contains(QStringLiteral(" — head 2 · query 4 ")),
                     qPrintable(grid->readout()->fullText()));
        QVERIFY2(grid->readout()->fullText().contains(QStringLiteral("→ key 3 ")),
                 qPrintable(grid->readout()->fullText()));
        // The Model tab: its hover line and its menu name the same head alike.
        auto* modelTab = w_->findChild<ModelGrid*>();
        QVERIFY(modelTab);
        test_support::clickTab(w_->tabs()->tabBar(),
                               test_support::pageOf(w_->tabs(), QStringLiteral("model")));
        auto* canvas = modelTab->findChild<ModelGridCanvas*>();
        QVERIFY(canvas);
        QTRY_VERIFY(canvas->isVisible() && !canvas->thumbRect(1, 0).isEmpty());
        const QPoint thumb = canvas->thumbRect(1, 0).center().toPoint();
        moveThroughWindow(canvas, thumb);
        QLabel* note = nullptr;
        QTRY_VERIFY(([&] {
            for (QLabel* l : modelTab->findChildren<QLabel*>())
                if (l->text().startsWith(QStringLiteral("Layer 2, head 1:"))) note = l;
            return note != nullptr;
        }()));
        clickThroughWindow(canvas, Qt::RightButton, thumb);
        QCOMPARE(popupTexts().value(0), QStringLiteral("Ablate layer 2, head 1"));
    }

  private:
    /// Clicks the Interventions tab and returns its first page when that is the page of the
    /// interventions in effect (null otherwise).
    QWidget* openInEffectPage() {
        auto* tab = named<QWidget>(w_.get(), "interventionsTab");
        if (!tab) return nullptr;
        test_support::clickTab(w_->tabs()->tabBar(), w_->tabs()->indexOf(tab));
        if (!QTest::qWaitFor([&] { return tab->isVisible(); }, 10000)) return nullptr;
        auto* pages = named<QTabWidget>(tab, "interventionPages");
        QWidget* page = named<QWidget>(tab, "interventionsList");
        if (!pages || !page || pages->currentWidget() != page) return nullptr;
        return QTest::qWaitFor([&] { return page->isVisible(); }, 10000) ? page : nullptr;
    }

    /// Types VALUE into BOX as a user does (select all, the digits, Enter).
    static void setBox(QSpinBox* box, int value) {
        QTest::mouseClick(box, Qt::LeftButton);
        QTest::keyClick(box, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(box, QString::number(value));
        QTest::keyClick(box, Qt::Key_Return);
        QCOMPARE(box->value(), value);
    }

    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> w_;
    fileio::ModelController* models_ = nullptr;
};

QTEST_MAIN(InterventionReachTest)
#include "intervention_reach_test.moc"
