// QtTest: the Interventions tab and the knockout gesture with real events, on a tiny random
// GPT-2 (tests/core/gpt2_tiny.py, 3 layers × 2 heads) running "the cat". Patching is typed and
// started from the GUI (Enter in the Wrong box) and its drawn maps are core's
// attn::interv::patch numbers; an unequal corrupted prompt is refused naming both lengths; the
// logit lens's drawn cells are core's lens_table top tokens; a click on the attribution's top
// 10 attributes that token and the parts sum to core's logit; a right click on a heatmap cell
// knocks that edge out (the top 10 become core's for the knocked-out run) and Ctrl+Z restores;
// File ▸ Export's numbers of the tab are the drawn maps and its figure is drawn.
#include <QContextMenuEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPlainTextEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QTabBar>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/interventions/attribution.hpp"
#include "attn/interventions/lens.hpp"
#include "attn/interventions/patching.hpp"
#include "attn/scene/model_scene.hpp"
#include "export/figure_export.hpp"
#include "export/view_numbers.hpp"
#include "io/data_io.hpp"
#include "io/model_controller.hpp"
#include "io/model_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "views/attribution_view.hpp"
#include "views/cell_map.hpp"
#include "views/head_heatmap.hpp"
#include "views/heatmap_grid.hpp"
#include "views/interventions_tab.hpp"
#include "views/logit_lens_view.hpp"
#include "views/next_tokens_view.hpp"
#include "views/patching_view.hpp"
#include "views/token_pick.hpp"
#include "widgets/tab_strip.hpp"
#include "widgets/token_editor.hpp"

namespace {

QAction* actionFor(QWidget& w, const QKeySequence& keys) {
    for (QAction* a : w.findChildren<QAction*>())
        if (a->shortcuts().contains(keys)) return a;
    return nullptr;
}

/// Clicks tab TITLE of BAR.
bool clickTab(QTabBar* bar, const QString& title) {
    for (int i = 0; i < bar->count(); ++i)
        if (bar->tabText(i).remove(QLatin1Char('&')) == title) {
            QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(i).center());
            return true;
        }
    return false;
}

void typeInto(QLineEdit* edit, const QString& text) {
    QTest::mouseClick(edit, Qt::LeftButton);
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(edit, text);
}

std::vector<attn::NextToken> core10(const attn::SceneSpec& spec) {
    return attn::model::model_scene(spec).next_tokens;
}

}  // namespace

class InterventionsViewsTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeInterventionsViewsTest"));
        QVERIFY(dir_.isValid());
        QProcess p;
        p.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral(ATTN_GPT2_TINY), dir_.path(),
                                                     QStringLiteral("11"), QStringLiteral("3")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
    }

    void init() {
        w_ = std::make_unique<MainWindow>();
        fileio::attachDataIo(w_.get(), {});
        models_ = w_->findChild<fileio::ModelController*>();
        QVERIFY(models_);
        models_->setQuiet(true);
        test_support::showWindow(*w_);
        // The synthetic scene has no model: the pages are disabled and a line says why.
        tab_ = w_->findChild<InterventionsTab*>();
        QVERIFY(tab_);
        QVERIFY(!tab_->pages()->isEnabled());
        QVERIFY2(tab_->reason().contains(QStringLiteral("synthetic")), qPrintable(tab_->reason()));
        QVERIFY(models_->openModel(dir_.path()));
        QPlainTextEdit* edit = w_->tokenEditor()->editor();
        QTest::mouseClick(edit->viewport(), Qt::LeftButton);
        QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(edit, QStringLiteral("the cat"));
        QTRY_COMPARE(w_->scene()->spec().text, std::string("the cat"));
        test_support::settle(w_->computeService());
        QVERIFY(tab_->reason().isEmpty());
        QVERIFY(tab_->pages()->isEnabled());
        QVERIFY(clickTab(w_->findChild<TabStrip*>()->bar(), QStringLiteral("Interventions")));
        QTRY_COMPARE(w_->tabs()->currentWidget(), static_cast<QWidget*>(tab_));
    }

    void cleanup() { w_.reset(); }

    void patchingFromTheGui() {
        QVERIFY(clickTab(tab_->pages()->tabBar(), QStringLiteral("Patching")));
        PatchingView* view = tab_->patching();
        QTRY_VERIFY(view->isVisible());
        const auto& folder = *w_->scene()->spec().model;
        // Unequal lengths: refused, naming both.
        const std::size_t n = folder.tokenizer->encode("the cat").size();
        typeInto(view->corruptEdit(), QStringLiteral("the cats sat"));
        const std::size_t m = folder.tokenizer->encode("the cats sat").size();
        QVERIFY(m != n);
        typeInto(view->answerEdit(), QStringLiteral("5"));
        typeInto(view->wrongEdit(), QStringLiteral("7"));
        QTest::keyClick(view->wrongEdit(), Qt::Key_Return);
        QVERIFY(!view->running());
        QVERIFY2(view->status()->text().contains(QString::number(n)) &&
                     view->status()->text().contains(QString::number(m)),
                 qPrintable(view->status()->text()));

        typeInto(view->corruptEdit(), QStringLiteral("the bat"));
        QCOMPARE(folder.tokenizer->encode("the bat").size(), n);
        QSignalSpy done(view, &PatchingView::finished);
        QTest::keyClick(view->wrongEdit(), Qt::Key_Return);
        QVERIFY(view->running());
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
        QVERIFY2(view->result().heads.size() > 0, qPrintable(view->status()->text()));

        attn::interv::PatchSpec spec;
        spec.clean = folder.tokenizer->encode("the cat");
        spec.corrupt = folder.tokenizer->encode("the bat");
        spec.answer = 5;
        spec.wrong = 7;
        const attn::interv::PatchResult core = attn::interv::patch(*folder.model, spec);
        const attn::Matrix& heads = view->headMap()->values();
        QCOMPARE(heads.rows(), attn::Index(3));
        QCOMPARE(heads.cols(), attn::Index(2));
        QVERIFY((heads - core.heads).cwiseAbs().maxCoeff() < 1e-5f);
        const attn::Matrix& resid = view->residMap()->values();
        QCOMPARE(resid.rows(), attn::Index(4));
        QCOMPARE(resid.cols(), attn::Index(n));
        QVERIFY((resid - core.resid).cwiseAbs().maxCoeff() < 1e-5f);
        // The identity: the stream after the last layer at the last position restores 1.
        QVERIFY(std::abs(resid(3, attn::Index(n) - 1) - 1.0f) < 1e-5f);

        // File ▸ Export's numbers of the tab are the drawn maps; its figure is the page.
        exporting::PlotNumbers numbers;
        QVERIFY(exporting::plotNumbersOfView(tab_, &numbers));
        // The two maps, then what they were computed from (intervention_exports_test.cpp).
        QVERIFY(numbers.series.size() > 2);
        QCOMPARE(numbers.series[2].name, QStringLiteral("clean prompt"));
        QCOMPARE(numbers.series[0].z.size(), std::size_t(6));
        for (std::size_t i = 0; i < 6; ++i)
            QCOMPARE(numbers.series[0].z[i], double(heads(attn::Index(i / 2), attn::Index(i % 2))));
        QCOMPARE(numbers.series[1].z.size(), std::size_t(4 * n));
        const QString csv = dir_.filePath(QStringLiteral("patching.csv"));
        QCOMPARE(exporting::writePlotNumbers(numbers, csv), QString());
        const QString png = dir_.filePath(QStringLiteral("patching.png"));
        exporting::Options options;
        options.size = {900, 600};
        QCOMPARE(exporting::exportFigure(view, png, options), QString());
        const QImage image(png);
        QCOMPARE(image.size(), QSize(900, 600));
        QVERIFY(test_support::distinctColours(image) > 20);
    }

    void logitLensCellIsCores() {
        QVERIFY(clickTab(tab_->pages()->tabBar(), QStringLiteral("Logit lens")));
        LogitLensView* view = tab_->lens();
        QTRY_VERIFY_WITH_TIMEOUT(!view->table().cells.empty(), 30000);
        const attn::SceneSpec& spec = w_->scene()->spec();
        const auto run = attn::model::scene_run(spec);
        const attn::interv::LensTable core = attn::interv::lens_table(*spec.model->model, *run);
        CellMap* map = view->map();
        QCOMPARE(map->values().rows(), attn::Index(4));
        QCOMPARE(map->values().cols(), attn::Index(run->ids.size()));
        for (attn::Index r = 0; r < core.layers; ++r)
            for (attn::Index c = 0; c < core.positions; ++c) {
                const attn::interv::LensCell& cell = core.at(r, c);
                QCOMPARE(map->texts().value(int(r * core.positions + c)),
                         visibleToken(QString::fromStdString(
                             spec.model->tokenizer->token_text(cell.ids[0]))));
                QVERIFY(std::abs(map->values()(r, c) - cell.probabilities[0]) < 1e-6f);
            }
        // Hovering a cell names its top 5 with probabilities.
        const QString tip = view->cellTip(1, 0);
        QVERIFY2(tip.contains(QStringLiteral("5. ")), qPrintable(tip));
        QCOMPARE(map->cellAt(map->cellCentre(2, 1)), QPoint(2, 1));
    }

    void attributionSumsToTheLogit() {
        QVERIFY(clickTab(tab_->pages()->tabBar(), QStringLiteral("Attribution")));
        AttributionView* view = tab_->attribution();
        QTRY_VERIFY_WITH_TIMEOUT(view->topTokens()->count() == 10, 30000);
        // A click on the third likeliest token attributes its logit.
        QListWidgetItem* third = view->topTokens()->item(2);
        const int id = third->data(Qt::UserRole).toInt();
        QSignalSpy computed(view, &AttributionView::computed);
        QTest::mouseClick(view->topTokens()->viewport(), Qt::LeftButton, {},
                          view->topTokens()->visualItemRect(third).center());
        QTRY_COMPARE_WITH_TIMEOUT(computed.count(), 1, 30000);
        QCOMPARE(view->attribution().token, id);
        const attn::SceneSpec& spec = w_->scene()->spec();
        const auto run = attn::model::scene_run(spec);
        const attn::interv::Attribution core =
            attn::interv::attribute(*spec.model->model, run->ids, id);
        QVERIFY((view->map()->values() - core.heads).cwiseAbs().maxCoeff() < 1e-5f);
        QVERIFY(std::abs(core.total() - core.logit) < 1e-4 * std::max(1.0, std::abs(core.logit)));
        QVERIFY2(view->sumLabel()->text().contains(QString::number(core.logit, 'f', 4)),
                 qPrintable(view->sumLabel()->text()));
        // Typed: an id outside the vocabulary is refused with the range.
        typeInto(view->tokenEdit(), QStringLiteral("999"));
        QTest::keyClick(view->tokenEdit(), Qt::Key_Return);
        QVERIFY2(view->status()->text().contains(QStringLiteral("0 to 257")),
                 qPrintable(view->status()->text()));
    }

    void knockOutAnEdgeThenUndo() {
        QVERIFY(clickTab(w_->findChild<TabStrip*>()->bar(), QStringLiteral("Heads")));
        HeatmapGrid* grid = w_->heatmapGrid();
        QTRY_VERIFY(grid->isVisible());
        test_support::settle(w_->computeService());
        const std::vector<attn::NextToken> before = models_->dock()->nextTokens()->tokens();
        HeadHeatmap* head = grid->head(1);
        // The cell of the last query and the first key.
        const int last = head->rowCount() - 1;
        QPoint at;
        for (int y = 0; y < head->height() && at.isNull(); ++y)
            for (int x = 0; x < head->width(); ++x)
                if (head->cellAt({x, y}) == QPoint(0, last)) {
                    at = {x + 2, y + 2};
                    break;
                }
        QVERIFY(!at.isNull());
        QCOMPARE(head->cellAt(at), QPoint(0, last));
        const QPoint g = head->mapTo(grid, at);
        QContextMenuEvent click(QContextMenuEvent::Mouse, g, grid->mapToGlobal(g));
        QApplication::sendEvent(grid, &click);
        QMenu* menu = nullptr;
        QTRY_VERIFY((menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())));
        QStringList texts;
        for (QAction* a : menu->actions())
            texts << a->text();
        QVERIFY2(
            texts.contains(QStringLiteral("Knock out this edge (query %1 → key 1)").arg(last + 1)),
            qPrintable(texts.join(QLatin1Char('|'))));
        QVERIFY(texts.contains(QStringLiteral("Knock out key column 1")));
        // Down past "Ablate head" and onto the edge entry (the separator is skipped), Enter.
        QTest::keyClick(menu, Qt::Key_Down);
        QTest::keyClick(menu, Qt::Key_Down);
        QTest::keyClick(menu, Qt::Key_Return);
        QTRY_COMPARE(
            w_->scene()->spec().interventions.knockouts,
            (std::vector<attn::model::Knockout>{{{attn::model::kSingleStack, 0, 1}, last, 0}}));
        QCOMPARE(w_->scene()->undoStack()->undoText(),
                 QStringLiteral("Knock out query %1 → key 1 in layer 1, head 2").arg(last + 1));
        test_support::settle(w_->computeService());
        QVERIFY2(grid->head(1)->titleText().contains(QStringLiteral("knocked out")),
                 qPrintable(grid->head(1)->titleText()));
        const std::vector<attn::NextToken> after = models_->dock()->nextTokens()->tokens();
        const std::vector<attn::NextToken> core = core10(w_->scene()->spec());
        QCOMPARE(after.size(), core.size());
        bool changed = false;
        for (std::size_t i = 0; i < after.size(); ++i) {
            QCOMPARE(after[i].id, core[i].id);
            QVERIFY(std::abs(after[i].probability - core[i].probability) < 1e-6f);
            changed = changed || std::abs(after[i].probability - before[i].probability) > 1e-7f;
        }
        QVERIFY(changed);
        QAction* undo = actionFor(*w_, QKeySequence(Qt::CTRL | Qt::Key_Z));
        QVERIFY(undo);
        // Ctrl+Z pressed on the Heads tab (the sentence box would take it as its own undo).
        w_->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(w_.get()));
        grid->setFocus();
        QVERIFY2(undo->isEnabled(), qPrintable(undo->text()));
        QTest::keyClick(grid, Qt::Key_Z, Qt::ControlModifier);
        QTRY_VERIFY(w_->scene()->spec().interventions.empty());
        test_support::settle(w_->computeService());
        const std::vector<attn::NextToken> restored = models_->dock()->nextTokens()->tokens();
        for (std::size_t i = 0; i < restored.size(); ++i) {
            QCOMPARE(restored[i].id, before[i].id);
            QVERIFY(std::abs(restored[i].probability - before[i].probability) < 1e-7f);
        }
    }

  private:
    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> w_;
    fileio::ModelController* models_ = nullptr;
    InterventionsTab* tab_ = nullptr;
};

QTEST_MAIN(InterventionsViewsTest)
#include "interventions_views_test.moc"
