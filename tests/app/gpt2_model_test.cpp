// QtTest: a GPT-2 model in the window, driven with real events. A tiny random GPT-2 (written by
// tests/core/gpt2_tiny.py) opens from Model ▸ (the Hugging Face cache list), the sentence box
// runs it, scaling is switched off in one layer only, and a later layer's drawn weights and the
// top-10 prediction change and match core's numbers; a bad folder leaves the scene untouched;
// a session reopens the model, and a session whose model folder is gone says so.
#include <sys/stat.h>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QScreen>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/models/families.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/scene/scene_layers.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "io/model_controller.hpp"
#include "io/model_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "tiny_folders.hpp"
#include "views/heatmap_grid.hpp"
#include "views/next_tokens_view.hpp"
#include "views/views_tab.hpp"
#include "widgets/controls_dock.hpp"
#include "widgets/token_editor.hpp"

namespace {

/// The largest difference between two layers' weights (all heads).
double difference(const attn::SceneResult& a, const attn::SceneResult& b) {
    double d = 0;
    for (std::size_t h = 0; h < a.heads.size(); ++h)
        d = std::max(d, double((a.heads[h].weights - b.heads[h].weights).cwiseAbs().maxCoeff()));
    return d;
}

}  // namespace

class Gpt2ModelTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeGpt2ModelTest"));
        // A Hugging Face cache with the tiny model as models--tiny-gpt2 (HF_HOME/hub/…).
        QCOMPARE(test_support::writeCachedModel(hub_, test_support::Tiny::Gpt2,
                                                QStringLiteral("tiny-gpt2"), &model_),
                 QString());
    }

    // Byte-level tokens that are no character alone read as their bytes in the Next-token
    // list: 0xC3 and 0xC4 (ids 195 and 196 of the tiny vocabulary) both used to show "�".
    void partialBytesShowDifferentLabels() {
        const attn::model::ModelFolder folder = attn::model::open_folder(model_.toStdString());
        NextTokensView view;
        view.setTokens({{195, folder.tokenizer->token_text(195), 0.5f},
                        {196, folder.tokenizer->token_text(196), 0.25f},
                        {10, folder.tokenizer->token_text(10), 0.125f}});
        // Each token isolated (U+2068 … U+2069), so that a right-to-left one keeps its row.
        QCOMPARE(view.rowText(0), QStringLiteral("“\u2068<0xC3>\u2069”  50.0 %"));
        QCOMPARE(view.rowText(1), QStringLiteral("“\u2068<0xC4>\u2069”  25.0 %"));
        QCOMPARE(view.rowText(2), QStringLiteral("“\u2068<0x0A>\u2069”  12.5 %"));  // no box
    }

    void badFolderLeavesTheSceneUntouched() {
        MainWindow w;
        fileio::ModelController models(&w);
        models.setQuiet(true);
        QTemporaryDir bad;
        QVERIFY2(test_support::writeTinyGpt2(bad.path()).isEmpty(), "tiny model");
        QFile weights(bad.path() + QStringLiteral("/model.safetensors"));
        QVERIFY(weights.resize(weights.size() - 100));  // truncated
        const attn::SceneSpec before = w.scene()->spec();
        const int undo = w.scene()->undoStack()->count();
        QVERIFY(!models.openModel(bad.path()));
        QVERIFY2(models.lastError().contains(QStringLiteral("model.safetensors")) &&
                     models.lastError().contains(QStringLiteral("truncated")) &&
                     models.lastError().contains(QStringLiteral("h.2.mlp.c_proj")),
                 qPrintable(models.lastError()));
        QVERIFY(w.scene()->spec() == before);
        QCOMPARE(w.scene()->undoStack()->count(), undo);
        QVERIFY(!models.openModel(bad.path() + QStringLiteral("/nowhere")));
        QVERIFY2(models.lastError().contains(QStringLiteral("config.json")),
                 qPrintable(models.lastError()));
        QVERIFY(w.scene()->spec() == before);
    }

    void cacheMenuIsBuiltOffTheGuiThread() {
        // A snapshot whose config.json is a FIFO: read on the GUI thread (or read blocking at
        // all) it would hang the start until someone wrote to it.
        const QString fifoModel =
            hub_.path() + QStringLiteral("/hub/models--fifo-gpt2/snapshots/feed");
        QVERIFY(QDir().mkpath(fifoModel));
        QVERIFY(QFile(model_ + QStringLiteral("/model.safetensors"))
                    .copy(fifoModel + QStringLiteral("/model.safetensors")));
        QCOMPARE(::mkfifo(QFile::encodeName(fifoModel + QStringLiteral("/config.json")).constData(),
                          0600),
                 0);
        MainWindow w;
        fileio::ModelController models(&w);
        QSignalSpy scanned(&models, &fileio::ModelController::cacheScanned);
        // Constructed without reading the cache: the menu says it is still looking.
        QStringList texts;
        for (QAction* a : models.menu()->actions())
            texts << a->text();
        QVERIFY2(texts.join(QLatin1Char('|')).contains(QStringLiteral("Looking in")),
                 qPrintable(texts.join(QLatin1Char('|'))));
        QVERIFY(scanned.wait());
        texts.clear();
        for (QAction* a : models.menu()->actions())
            texts << a->text();
        // Each entry gives the repository, the family and the weights' size.
        const QString joined = texts.join(QLatin1Char('|'));
        QVERIFY2(joined.contains(QStringLiteral("tiny-gpt2 — GPT-2 · ")), qPrintable(joined));
        QVERIFY2(!joined.contains(QStringLiteral("fifo-gpt2")),
                 qPrintable(texts.join(QLatin1Char('|'))));
        QVERIFY(QDir(hub_.path() + QStringLiteral("/hub/models--fifo-gpt2")).removeRecursively());
    }

    void typeScopeAndToggleScalingLikeAUser() {
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        ControlsDock* controls = w.controlsDock();
        QVERIFY(!controls->scopeBox()->isVisible());  // no model: no scope

        // Model ▸ lists the cache's GPT-2 folder; its entry opens it.
        QVERIFY(w.menuBar()->actions().contains(models->menu()->menuAction()));
        QString listed;
        QAction* entry = test_support::cacheEntry(models, test_support::Tiny::Gpt2,
                                                  QStringLiteral("tiny-gpt2"), &listed);
        QVERIFY2(entry, qPrintable(QStringLiteral("Model ▸ lists models--tiny-gpt2: ") + listed));
        QCOMPARE(entry->toolTip(), QFileInfo(model_).absoluteFilePath());
        // Opened over a file, the model takes the title (issue 26, item 2).
        auto* files = w.findChild<fileio::FileController*>();
        files->setQuiet(true);
        QVERIFY(files->openFile(test_support::fixture("bertviz_distilbert_headview.json")));
        QVERIFY2(w.windowTitle().startsWith(QStringLiteral("bertviz_distilbert_headview.json")),
                 qPrintable(w.windowTitle()));
        entry->trigger();
        QVERIFY2(models->lastError().isEmpty(), qPrintable(models->lastError()));
        QVERIFY(w.scene()->spec().model);
        QVERIFY2(w.windowTitle().startsWith(QStringLiteral("model tiny-gpt2")),
                 qPrintable(w.windowTitle()));
        // The default sentence is longer than the tiny model's 16 positions: it opens on the
        // first 16 tokens (not an error above the previous scene's heads), and says so.
        QVERIFY(std::string(attn::kDefaultSentence).starts_with(w.scene()->spec().text));
        QVERIFY(w.scene()->spec().text.size() < std::string(attn::kDefaultSentence).size());
        QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("first 16")),
                 qPrintable(w.statusBar()->currentMessage()));
        test_support::settle(w.computeService());
        QCOMPARE(w.result()->query_count(), 16);
        QVERIFY(w.result()->run);
        QVERIFY(controls->scopeBox()->isVisible());
        QVERIFY(!controls->dModelBox()->isVisible());  // the synthetic model's group is hidden
        QVERIFY(models->dock()->isVisible());

        // Typing in the sentence box runs the model once the typing pauses.
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the cat")), QString());
        QCOMPARE(w.result()->q_tokens, (std::vector<std::string>{"t", "he", " ", "c", "a", "t"}));
        QCOMPARE(w.heatmapGrid()->headCount(), 2);
        QCOMPARE(test_support::compareWithCore(w.heatmapGrid(), w.scene()->spec()), QString());
        attn::SceneSpec base = w.scene()->spec();
        base.layer = 2;
        const attn::SceneResult baseLast = attn::compute_scene(base);
        base.layer = 0;
        const attn::SceneResult baseFirst = attn::compute_scene(base);
        const std::vector<attn::NextToken> baseNext = models->dock()->nextTokens()->tokens();
        QCOMPARE(baseNext.size(), std::size_t(10));
        QCOMPARE(baseNext.front().id, baseLast.next_tokens.front().id);

        // Scope: layer 2 only (keyboard on the combo box), then scaling off (a click).
        QComboBox* scope = controls->scopeBox();
        QCOMPARE(scope->count(), 4);  // all layers + 3
        scope->setFocus();
        QTest::keyClick(scope, Qt::Key_Down);
        QTest::keyClick(scope, Qt::Key_Down);
        QCOMPARE(w.scene()->spec().model_layers, std::vector<int>{1});
        QCheckBox* scale = controls->scaleBox();
        QVERIFY(scale->isEnabled() && scale->isChecked());
        QTest::mouseClick(scale, Qt::LeftButton, {}, QPoint(8, scale->height() / 2));
        QVERIFY(!w.scene()->spec().scale);
        test_support::settle(w.computeService());

        // Show layer 3 (the dock's spin box, typed): later than the scope, so it changed.
        QSpinBox* layer = models->dock()->layerBox();
        layer->setFocus();
        layer->selectAll();
        QTest::keyClicks(layer, QStringLiteral("3"));
        QTest::keyClick(layer, Qt::Key_Return);
        QCOMPARE(w.scene()->spec().layer, attn::Index(2));
        test_support::settle(w.computeService());
        QCOMPARE(test_support::compareWithCore(w.heatmapGrid(), w.scene()->spec()), QString());
        const attn::SceneResult shown = *w.result();
        QVERIFY2(difference(shown, baseLast) > 1e-3, "layer 3 follows the change in layer 2");
        attn::SceneSpec first = w.scene()->spec();
        first.layer = 0;
        QCOMPARE(difference(attn::compute_scene(first), baseFirst), 0.0);  // before it: as was

        // The prediction follows: core's top 10 of this run, not the one before.
        const std::vector<attn::NextToken>& next = models->dock()->nextTokens()->tokens();
        QCOMPARE(next.size(), std::size_t(10));
        double moved = 0;
        for (std::size_t i = 0; i < next.size(); ++i) {
            QCOMPARE(next[i].id, shown.next_tokens[i].id);
            QCOMPARE(next[i].probability, shown.next_tokens[i].probability);
            for (const attn::NextToken& b : baseNext)
                if (b.id == next[i].id)
                    moved = std::max(moved, double(std::abs(b.probability - next[i].probability)));
        }
        QVERIFY2(moved > 1e-4, "the probabilities changed");
        QVERIFY(models->dock()->nextTokens()->rowText(0).contains(QStringLiteral("%")));

        // Looked at by a person: ATTN_SCREENSHOT_DIR=… (under xvfb-run, at the screen's size).
        if (!qEnvironmentVariableIsEmpty("ATTN_SCREENSHOT_DIR")) {
            w.resize(w.screen()->availableGeometry().size());
            test_support::settleAll(w.computeService());
            const QImage shot = w.grab().toImage();
            test_support::saveScreenshot(
                shot, QStringLiteral("gpt2-model-%1x%2.png").arg(shot.width()).arg(shot.height()));
            // The Model tab: every layer's heads.
            w.tabs()->setCurrentWidget(w.findChild<QWidget*>(QStringLiteral("modelTab")));
            test_support::settleAll(w.computeService());
            const QImage tab = w.grab().toImage();
            test_support::saveScreenshot(
                tab, QStringLiteral("gpt2-model-tab-%1x%2.png").arg(tab.width()).arg(tab.height()));
            w.tabs()->setCurrentWidget(w.viewsTab());  // every view of the Views tab
            for (int i = 0; i < w.viewsTab()->tabs()->count(); ++i) {
                w.viewsTab()->tabs()->setCurrentIndex(i);
                test_support::settleAll(w.computeService());
                test_support::saveScreenshot(w.grab().toImage(),
                                             QStringLiteral("gpt2-views-%1.png").arg(i));
            }
            w.tabs()->setCurrentIndex(0);
        }

        // Every tab and lens shows the model's scene without failing (each lens recomputes).
        auto* theory = w.findChild<QTabWidget*>(QStringLiteral("theoryTabs"));
        QVERIFY(theory);
        w.tabs()->setCurrentWidget(theory);
        for (int i = 0; i < theory->count(); ++i) {
            theory->setCurrentIndex(i);
            test_support::settleAll(w.computeService());
        }
        w.tabs()->setCurrentWidget(w.findChild<QWidget*>(QStringLiteral("modelTab")));
        test_support::settleAll(w.computeService());
        w.tabs()->setCurrentIndex(0);

        // Every layer in the Model tab: 3 × 2 thumbnails.
        QCOMPARE(attn::layer_count(w.scene()->spec()), attn::Index(3));

        // The session references the folder and reopens it with the scope.
        QTemporaryDir sessions;
        const QString session = sessions.path() + QStringLiteral("/gpt2.attnscope");
        QVERIFY(files);
        QString error;
        QVERIFY2(files->saveTo(session, &error), qPrintable(error));
        {
            MainWindow again;
            fileio::FileController reopen(&again);
            reopen.setQuiet(true);
            QVERIFY2(reopen.openFile(session), qPrintable(reopen.lastError()));
            const attn::SceneSpec& s = again.scene()->spec();
            QVERIFY(s.model);
            QCOMPARE(QString::fromStdString(s.model->dir), QFileInfo(model_).absoluteFilePath());
            QCOMPARE(s.model_layers, std::vector<int>{1});
            QCOMPARE(s.layer, attn::Index(2));
            QCOMPARE(s.text, std::string("the cat"));
            QVERIFY(!s.scale);
        }
        // Moved away: a clear message, and the scene stays as it was.
        const QString movedTo = hub_.path() + QStringLiteral("/elsewhere");
        QVERIFY(QDir().rename(model_, movedTo));
        {
            MainWindow again;
            fileio::FileController reopen(&again);
            reopen.setQuiet(true);
            const attn::SceneSpec before = again.scene()->spec();
            QVERIFY(!reopen.openFile(session));
            QVERIFY2(reopen.lastError().contains(QStringLiteral("does not exist")) &&
                         reopen.lastError().contains(QFileInfo(model_).absoluteFilePath()),
                     qPrintable(reopen.lastError()));
            QVERIFY(again.scene()->spec() == before);
        }
        QVERIFY(QDir().rename(movedTo, model_));

        // Close Model: back to the synthetic scene, the scope row gone.
        models->closeModel();
        QVERIFY(!w.scene()->spec().model);
        QVERIFY(!controls->scopeBox()->isVisible());
        QVERIFY(controls->dModelBox()->isVisible());
        test_support::settle(w.computeService());
        QVERIFY(!w.result()->run);
        QVERIFY(models->dock()->nextTokens()->tokens().empty());
    }

  private:
    QTemporaryDir hub_;
    QString model_;
};

QTEST_MAIN(Gpt2ModelTest)
#include "gpt2_model_test.moc"
