// QtTest: ablating a head of a model run from the Heads tab with real events. A tiny random
// GPT-2 (tests/core/gpt2_tiny.py, 3 layers × 2 heads) runs on "the cat"; a right click on head 2
// opens the context menu, whose Ablate entry (chosen with the keyboard) ablates layer 0's head
// 1 inside the run: the head's title says "ablated", the Model dock's top 10 change to core's
// numbers for the ablated run, and Edit ▸ Undo (Ctrl+Z) restores both; a session keeps it.
#include <QContextMenuEvent>
#include <QMenu>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "app_test_support.hpp"
#include "attn/scene/model_scene.hpp"
#include "io/data_io.hpp"
#include "io/model_controller.hpp"
#include "io/model_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "tiny_folders.hpp"
#include "views/head_heatmap.hpp"
#include "views/heatmap_grid.hpp"
#include "views/next_tokens_view.hpp"
#include "widgets/token_editor.hpp"

namespace {

std::vector<float> probabilities(const std::vector<attn::NextToken>& tokens) {
    std::vector<float> p;
    for (const attn::NextToken& t : tokens)
        p.push_back(t.probability);
    return p;
}

/// The action of the main window whose shortcut is KEYS (Edit ▸ Undo for Ctrl+Z).
QAction* actionFor(QWidget& w, const QKeySequence& keys) {
    for (QAction* a : w.findChildren<QAction*>())
        if (a->shortcuts().contains(keys)) return a;
    return nullptr;
}

}  // namespace

class InterventionsTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeInterventionsTest"));
        QVERIFY(dir_.isValid());
        const QString error = test_support::writeTinyGpt2(dir_.path());
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void ablateFromTheHeadsMenuThenUndo() {
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        QVERIFY(models->openModel(dir_.path()));
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the cat")), QString());
        const std::vector<attn::NextToken> before = models->dock()->nextTokens()->tokens();
        QCOMPARE(before.size(), std::size_t(10));
        HeatmapGrid* grid = w.heatmapGrid();
        QCOMPARE(grid->headCount(), 2);
        HeadHeatmap* head = grid->head(1);
        QVERIFY(!head->titleText().contains(QStringLiteral("ablated")));

        // A right click on head 2 (index 1): the menu offers "Ablate layer 1, head 2"; Enter
        // picks it.
        // Sent to the grid, which owns the menu, at the head's centre in its coordinates.
        const QPoint at = head->mapTo(grid, head->rect().center());
        QContextMenuEvent click(QContextMenuEvent::Mouse, at, grid->mapToGlobal(at));
        QApplication::sendEvent(grid, &click);
        QMenu* menu = nullptr;
        QTRY_VERIFY((menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())));
        QCOMPARE(menu->objectName(), QStringLiteral("ablationMenu"));
        QCOMPARE(menu->actions().front()->text(), QStringLiteral("Ablate layer 1, head 2"));
        QTest::keyClick(menu, Qt::Key_Down);
        QTest::keyClick(menu, Qt::Key_Return);
        QTRY_COMPARE(w.scene()->spec().interventions.ablated,
                     (std::vector<attn::model::Site>{{attn::model::kSingleStack, 0, 1}}));
        test_support::settle(w.computeService());
        QVERIFY2(grid->head(1)->titleText().contains(QStringLiteral("ablated")),
                 qPrintable(grid->head(1)->titleText()));
        QVERIFY(!grid->head(0)->titleText().contains(QStringLiteral("ablated")));
        const std::vector<attn::NextToken> after = models->dock()->nextTokens()->tokens();
        QVERIFY(probabilities(after) != probabilities(before));
        // The dock shows core's prediction of the ablated run.
        const attn::SceneResult core = attn::model::model_scene(w.scene()->spec());
        QCOMPARE(after.size(), core.next_tokens.size());
        for (std::size_t i = 0; i < after.size(); ++i) {
            QCOMPARE(after[i].id, core.next_tokens[i].id);
            QVERIFY(std::abs(after[i].probability - core.next_tokens[i].probability) < 1e-6f);
        }
        QCOMPARE(w.scene()->undoStack()->undoText(), QStringLiteral("Ablate layer 1, head 2"));

        // Ctrl+Z (Edit ▸ Undo's shortcut) restores the head and the prediction.
        QAction* undo = actionFor(w, QKeySequence(Qt::CTRL | Qt::Key_Z));
        QVERIFY(undo);
        undo->trigger();
        QVERIFY(w.scene()->spec().interventions.empty());
        test_support::settle(w.computeService());
        QVERIFY(!grid->head(1)->titleText().contains(QStringLiteral("ablated")));
        QCOMPARE(probabilities(models->dock()->nextTokens()->tokens()), probabilities(before));
    }

  private:
    QTemporaryDir dir_;
};

QTEST_MAIN(InterventionsTest)
#include "interventions_test.moc"
