// QtTest: what follows a model switch (issue 37, items 3 and 4). Tiny GPT-2, Qwen2 and BERT
// folders sit in a Hugging Face cache and open from Model ▸ as a user opens them. An ablation
// and a knockout chosen from a head's context menu end with their model: opening another model
// or Model ▸ Close Model drops them in that same undo step (Ctrl+Z brings model and
// interventions back together). Every view shows the run on show or says it has none: the token
// line uses the new tokenizer, attribution and patching keep nothing of another model under a
// refusal, and a scene that cannot be computed leaves no old prediction in the Model dock and
// no old size in the status bar.
#include <QAction>
#include <QContextMenuEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "app_test_support.hpp"
#include "io/file_controller.hpp"
#include "io/model_controller.hpp"
#include "io/model_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "tiny_folders.hpp"
#include "views/attribution_view.hpp"
#include "views/cell_map.hpp"
#include "views/head_heatmap.hpp"
#include "views/heatmap_grid.hpp"
#include "views/interventions_tab.hpp"
#include "views/next_tokens_view.hpp"
#include "views/patching_view.hpp"
#include "widgets/token_editor.hpp"

namespace {

/// Writes a snapshot of REPO into HUB's cache with WRITE; "" when written.
QString writeSnapshot(const QTemporaryDir& hub, const QString& repo,
                      const std::function<QString(const QString&)>& write) {
    QString folder = repo;
    const QString snapshot = hub.path() + QStringLiteral("/hub/models--") +
                             folder.replace(QLatin1Char('/'), QStringLiteral("--")) +
                             QStringLiteral("/snapshots/0123abcd");
    if (!QDir().mkpath(snapshot)) return QStringLiteral("cannot make ") + snapshot;
    return write(snapshot);
}

/// Opens REPO from Model ▸'s list of the cache, as a user does; "" when it opened.
QString openFromModelMenu(fileio::ModelController* models, const QString& repo) {
    QSignalSpy scanned(models, &fileio::ModelController::cacheScanned);
    Q_EMIT models->menu()->aboutToShow();
    if (!scanned.wait(30000)) return QStringLiteral("the cache was not scanned");
    for (QAction* a : models->menu()->actions())
        if (a->text().startsWith(repo + QStringLiteral(" — "))) {
            a->trigger();
            return models->lastError();
        }
    return QStringLiteral("no entry for ") + repo;
}

/// Chooses ACTION ("toggleAblation", "toggleEdge") of the context menu of head HEAD's centre
/// cell on the Heads tab, with the keyboard.
void chooseFromHeadMenu(MainWindow& w, int head, const char* action) {
    HeatmapGrid* grid = w.heatmapGrid();
    HeadHeatmap* h = grid->head(head);
    QVERIFY(h);
    const QPoint at = h->mapTo(grid, h->rect().center());
    QContextMenuEvent click(QContextMenuEvent::Mouse, at, grid->mapToGlobal(at));
    QApplication::sendEvent(grid, &click);
    QMenu* menu = nullptr;
    QTRY_VERIFY((menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())));
    QAction* a = menu->findChild<QAction*>(QString::fromLatin1(action));
    QVERIFY2(a, action);
    menu->setActiveAction(a);
    QTest::keyClick(menu, Qt::Key_Return);
}

/// W with its data I/O attached and shown, every question answered Discard (quiet).
fileio::ModelController* quietWindow(MainWindow& w) {
    fileio::ModelController* models = test_support::attachQuietModels(w);
    if (auto* files = w.findChild<fileio::FileController*>()) files->setQuiet(true);
    return models;
}

/// Opens REPO from Model ▸ in W (quietWindow's), types SENTENCE and shows page PAGE of the
/// Interventions tab with clicks on the tabs; "" when done.
QString showInterventionPage(MainWindow& w, fileio::ModelController* models, const QString& repo,
                             const QString& sentence, QWidget* (*page)(InterventionsTab*)) {
    QString error = openFromModelMenu(models, repo);
    if (error.isEmpty()) error = test_support::typeSentence(w, sentence);
    auto* tab = w.findChild<InterventionsTab*>();
    if (!error.isEmpty() || !tab) return error.isEmpty() ? QStringLiteral("no tab") : error;
    test_support::clickTab(w.tabs()->tabBar(), w.tabs()->indexOf(tab));
    test_support::clickTab(tab->pages()->tabBar(), tab->pages()->indexOf(page(tab)));
    return {};
}

/// The status bar's permanent labels' texts.
QStringList statusTexts(MainWindow& w) {
    QStringList out;
    for (QLabel* l : w.statusBar()->findChildren<QLabel*>())
        if (!l->text().isEmpty()) out << l->text();
    return out;
}

}  // namespace

class ModelSwitchTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QVERIFY(hub_.isValid());
        QString error = writeSnapshot(hub_, QStringLiteral("tiny/gpt2"), [](const QString& d) {
            return test_support::writeTinyGpt2(d);
        });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        error = writeSnapshot(hub_, QStringLiteral("tiny/qwen"), [](const QString& d) {
            return test_support::writeTinyLlama(d, QStringLiteral("qwen2"));
        });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        error = writeSnapshot(hub_, QStringLiteral("tiny/bert"),
                              [](const QString& d) { return test_support::writeTinyBert(d); });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        qputenv("HF_HOME", hub_.path().toLocal8Bit());
    }

    void interventionsEndWithTheirModel() {
        MainWindow w;
        fileio::ModelController* models = quietWindow(w);
        QVERIFY(models);
        QCOMPARE(openFromModelMenu(models, QStringLiteral("tiny/qwen")), QString());
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the cat sat")), QString());
        QCOMPARE(w.heatmapGrid()->headCount(), 4);
        // Head 4 of layer 1, which GPT-2's 2 heads do not have, and an edge of head 3.
        chooseFromHeadMenu(w, 3, "toggleAblation");
        chooseFromHeadMenu(w, 2, "toggleEdge");
        QTRY_COMPARE(w.scene()->spec().interventions.ablated,
                     (std::vector<attn::model::Site>{{attn::model::kSingleStack, 0, 3}}));
        QTRY_COMPARE(w.scene()->spec().interventions.knockouts.size(), std::size_t(1));
        const attn::model::Interventions qwen = w.scene()->spec().interventions;
        test_support::settle(w.computeService());

        QSignalSpy failed(w.computeService(), &ComputeService::failed);
        QCOMPARE(openFromModelMenu(models, QStringLiteral("tiny/gpt2")), QString());
        QVERIFY(w.scene()->spec().interventions.empty());
        test_support::settle(w.computeService());
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed[0][0].toString()));
        QVERIFY(w.result());
        QCOMPARE(w.result()->heads.size(), std::size_t(2));
        // One step: Edit ▸ Undo gives back Qwen with its interventions.
        QCOMPARE(w.scene()->undoStack()->undoText(), QStringLiteral("Open model tiny/gpt2"));
        w.findChild<QAction*>(QStringLiteral("actionUndo"))->trigger();  // Edit ▸ Undo
        QCOMPARE(w.scene()->spec().interventions, qwen);
        QCOMPARE(w.scene()->spec().model->model->info().family, std::string("qwen2"));
        w.findChild<QAction*>(QStringLiteral("actionRedo"))->trigger();
        QVERIFY(w.scene()->spec().interventions.empty());
        test_support::settle(w.computeService());

        // Model ▸ Close Model ends them too, and reopening starts clean.
        chooseFromHeadMenu(w, 1, "toggleAblation");
        QTRY_VERIFY(!w.scene()->spec().interventions.empty());
        w.findChild<QAction*>(QStringLiteral("actionCloseModel"))->trigger();
        QVERIFY(!w.scene()->spec().is_model());
        QVERIFY(w.scene()->spec().interventions.empty());
        QCOMPARE(openFromModelMenu(models, QStringLiteral("tiny/gpt2")), QString());
        QVERIFY(w.scene()->spec().interventions.empty());
    }

    void theTokenLineUsesTheModelOnShow() {
        MainWindow w;
        fileio::ModelController* models = quietWindow(w);
        QVERIFY(models);
        QCOMPARE(openFromModelMenu(models, QStringLiteral("tiny/bert")), QString());
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the cat")), QString());
        auto* preview = w.tokenEditor()->findChild<QLabel*>();
        QVERIFY(preview);
        QVERIFY2(preview->toolTip().contains(QStringLiteral("[CLS]")),
                 qPrintable(preview->toolTip()));
        QCOMPARE(openFromModelMenu(models, QStringLiteral("tiny/qwen")), QString());
        QCOMPARE(preview->toolTip().remove(QChar(0x2068)).remove(QChar(0x2069)),
                 QStringLiteral("2 token(s): the · cat"));  // tokens isolated as bidi text
    }

    void attributionKeepsNoOtherModelsMap() {
        MainWindow w;
        fileio::ModelController* models = quietWindow(w);
        QVERIFY(models);
        QCOMPARE(
            showInterventionPage(w, models, QStringLiteral("tiny/gpt2"), QStringLiteral("the cat"),
                                 [](InterventionsTab* t) -> QWidget* { return t->attribution(); }),
            QString());
        AttributionView* view = w.findChild<InterventionsTab*>()->attribution();
        QTRY_VERIFY_WITH_TIMEOUT(view->map()->values().rows() == 3, 30000);
        QCOMPARE(openFromModelMenu(models, QStringLiteral("tiny/bert")), QString());
        // BERT is post-norm: attribution is refused, and GPT-2's map is not left under it.
        QTRY_VERIFY_WITH_TIMEOUT(view->status()->text() != QStringLiteral("Attributing…"), 30000);
        QVERIFY2(view->status()->text().contains(QStringLiteral("norm")),
                 qPrintable(view->status()->text()));
        QCOMPARE(view->map()->values().size(), attn::Index(0));
        QCOMPARE(view->map()->title(),
                 QStringLiteral("Each head's direct contribution to the logit"));
        QCOMPARE(view->topTokens()->count(), 0);
        QVERIFY(view->sumLabel()->text().isEmpty());
    }

    void patchingMapsGoWithTheirModel() {
        MainWindow w;
        fileio::ModelController* models = quietWindow(w);
        QVERIFY(models);
        QCOMPARE(showInterventionPage(
                     w, models, QStringLiteral("tiny/gpt2"), QStringLiteral("the cat sat"),
                     [](InterventionsTab* t) -> QWidget* { return t->patching(); }),
                 QString());
        PatchingView* view = w.findChild<InterventionsTab*>()->patching();
        QTest::keyClicks(view->corruptEdit(), QStringLiteral("the dog sat"));
        QTest::keyClicks(view->answerEdit(), QStringLiteral("t"));
        QTest::keyClicks(view->wrongEdit(), QStringLiteral("s"));
        QSignalSpy finished(view, &PatchingView::finished);
        QTest::mouseClick(view->runButton(), Qt::LeftButton);
        QVERIFY(finished.wait(60000));
        QCOMPARE(view->headMap()->values().rows(), attn::Index(3));
        // Another sentence: the maps stay, saying whose they are.
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the cat ran")), QString());
        QVERIFY2(view->status()->text().contains(QStringLiteral("Out of date")),
                 qPrintable(view->status()->text()));
        QVERIFY2(view->status()->text().contains(QStringLiteral("“the cat sat”")),
                 qPrintable(view->status()->text()));
        // Another model: GPT-2's maps go.
        QCOMPARE(openFromModelMenu(models, QStringLiteral("tiny/bert")), QString());
        QCOMPARE(view->headMap()->values().size(), attn::Index(0));
        QCOMPARE(view->residMap()->values().size(), attn::Index(0));
        QVERIFY2(view->status()->text().contains(QStringLiteral("another model")),
                 qPrintable(view->status()->text()));
    }

    void aSceneThatFailsLeavesNoOldNumbers() {
        MainWindow w;
        fileio::ModelController* models = quietWindow(w);
        QVERIFY(models);
        QCOMPARE(openFromModelMenu(models, QStringLiteral("tiny/gpt2")), QString());
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the cat")), QString());
        fileio::ModelDock* dock = models->dock();
        QCOMPARE(dock->nextTokens()->tokens().size(), std::size_t(10));
        QVERIFY(statusTexts(w).join(QLatin1Char('|')).contains(QStringLiteral("n = ")));
        // 26 characters: more than the tiny GPT-2's 16 positions.
        QSignalSpy failed(w.computeService(), &ComputeService::failed);
        QTest::keyClicks(w.tokenEditor()->editor(), QStringLiteral(" sat on the mat all day"));
        QVERIFY(QTest::qWaitFor(
            [&] { return w.scene()->spec().text == "the cat sat on the mat all day"; }, 30000));
        test_support::settle(w.computeService());
        QVERIFY(!failed.isEmpty());
        QVERIFY(dock->nextTokens()->tokens().empty());
        QVERIFY2(dock->predictionTitle().startsWith(QStringLiteral("No prediction:")),
                 qPrintable(dock->predictionTitle()));
        // The token line lists what the model reads and says there is more; the heads say
        // whose they are.
        const QString tokens = w.tokenEditor()->findChild<QLabel*>()->toolTip();
        QVERIFY2(tokens.startsWith(QStringLiteral(
                     "The first 16 tokens (the text has more than the model's 16 positions): ")),
                 qPrintable(tokens));
        QStringList grid;
        for (QLabel* l : w.heatmapGrid()->findChildren<QLabel*>())
            if (l->text().startsWith(QStringLiteral("Cannot compute"))) grid << l->text();
        QCOMPARE(grid.size(), 1);
        QVERIFY2(grid[0].endsWith(QStringLiteral("\nShown below: the last scene computed.")),
                 qPrintable(grid[0]));
        const QString status = statusTexts(w).join(QLatin1Char('|'));
        QVERIFY2(!status.contains(QStringLiteral("n = ")), qPrintable(status));
        QVERIFY2(!status.contains(QStringLiteral("computed in")), qPrintable(status));
    }

  private:
    QTemporaryDir hub_;
};

QTEST_MAIN(ModelSwitchTest)
#include "model_switch_test.moc"
