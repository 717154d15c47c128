// QtTest: the Interventions tab on an encoder–decoder's run, driven with real events. A tiny
// random Marian folder (tests/cli/seq2seq_tiny.py) opens from Model ▸ Open Model and runs a typed
// source and target; the tab shows the seq2seq view in place of the decoder-only pages; a right
// click on a cross-attention head of the Heads tab ablates it through the Translation dock; the
// component box picks Cross, then Encoder; the drawn logit lens, ablation map and patching map
// equal core's (seq2seq_lens_table, seq2seq_ablation_scan, seq2seq_patch) with that head ablated;
// an empty map (not scanned or patched yet, or dropped by a new run) says how to fill it.
#include <QComboBox>
#include <QContextMenuEvent>
#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "attn/interventions/seq2seq_lens.hpp"
#include "attn/scene/seq2seq_scene.hpp"
#include "io/model_controller.hpp"
#include "io/seq2seq_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "model/view_state.hpp"
#include "tiny_folders.hpp"
#include "views/cell_map.hpp"
#include "views/head_heatmap.hpp"
#include "views/heatmap_grid.hpp"
#include "views/interventions_tab.hpp"
#include "views/seq2seq_interventions_view.hpp"

namespace {

const QString kScript = QStringLiteral(ATTN_CORE_TESTS_DIR "/../app/seq2seq_window_reference.py");
const QString kSource = QStringLiteral("the cat sat on the mat");
const QString kTarget = QStringLiteral("die katze sass auf der matte");
const QString kCorruptTarget = QStringLiteral("die katze lief auf der matte");

void retype(QLineEdit* edit, const QString& text) {
    edit->setFocus();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Delete);
    QTest::keyClicks(edit, text);
}

/// The largest difference between MAP's drawn values and WANT, relative to WANT's largest.
double relative(const attn::Matrix& drawn, const attn::Matrix& want) {
    if (drawn.rows() != want.rows() || drawn.cols() != want.cols()) return 1e9;
    return double((drawn - want).cwiseAbs().maxCoeff()) /
           std::max(1e-9, double(want.cwiseAbs().maxCoeff()));
}

/// With ATTN_SEQ2SEQ_SHOTS=DIR, saves what W shows as DIR/NAME.png (to look at as a user).
void shot(QWidget& w, const QString& name) {
    const QString dir = qEnvironmentVariable("ATTN_SEQ2SEQ_SHOTS");
    if (!dir.isEmpty()) w.grab().save(dir + QLatin1Char('/') + name + QStringLiteral(".png"));
}

/// Runs VIEW's job by clicking BUTTON and waits for it.
void clickAndWait(Seq2SeqInterventionsView* view, QPushButton* button) {
    QSignalSpy computed(view, &Seq2SeqInterventionsView::computed);
    QTest::mouseClick(button, Qt::LeftButton);
    QVERIFY(computed.wait(60000));
}

}  // namespace

class Seq2SeqInterventionsTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeSeq2SeqInterventionsTest"));
    }

    void crossHeadAblatedFromTheHeadsMenuThenMapped() {
        QTemporaryDir dir;
        QProcess writer;
        writer.start(
            QStringLiteral("/usr/bin/python3"),
            {kScript, QStringLiteral("marian"), dir.path(), kSource, kTarget, QStringLiteral("4")});
        QVERIFY(writer.waitForFinished(120000));
        QVERIFY2(writer.exitCode() == 0, writer.readAllStandardError().constData());
        MainWindow w;
        fileio::ModelController* models = test_support::attachQuietModels(w);
        QVERIFY(models);
        if (qEnvironmentVariableIsSet("ATTN_SEQ2SEQ_SHOTS")) w.showMaximized();
        QVERIFY2(models->openModel(dir.path()), qPrintable(models->lastError()));
        test_support::settleAll(w.computeService());
        fileio::Seq2SeqDock* dock = models->seq2seqDock();
        retype(dock->sourceEdit(), kSource);
        retype(dock->targetEdit(), kTarget);
        QSignalSpy finished(dock, &fileio::Seq2SeqDock::finished);
        QTest::mouseClick(dock->runButton(), Qt::LeftButton);
        QVERIFY(finished.wait(60000));
        test_support::settleAll(w.computeService());
        w.tabs()->setCurrentIndex(
            test_support::pageOf(w.tabs(), QString::fromLatin1(view_keys::kTabHeads)));
        test_support::settleAll(w.computeService());

        // A right click on head 2 of the cross-attention's first layer: "Ablate cross.0.1";
        // Enter picks it and the dock runs again with it.
        HeatmapGrid* grid = w.heatmapGrid();
        QVERIFY(grid->headCount() >= 2);
        HeadHeatmap* head = grid->head(1);
        const QPoint at = head->mapTo(grid, head->rect().center());
        QContextMenuEvent click(QContextMenuEvent::Mouse, at, grid->mapToGlobal(at));
        QApplication::sendEvent(grid, &click);
        QMenu* menu = nullptr;
        QTRY_VERIFY((menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())));
        QCOMPARE(menu->objectName(), QStringLiteral("seq2seqAblationMenu"));
        QCOMPARE(menu->actions().front()->text(), QStringLiteral("Ablate cross.0.1"));
        QTest::keyClick(menu, Qt::Key_Down);
        QTest::keyClick(menu, Qt::Key_Return);
        QVERIFY(finished.wait(60000));
        test_support::settleAll(w.computeService());
        QCOMPARE(dock->ablateEdit()->text(), QStringLiteral("cross.0.1"));

        // The Interventions tab: the seq2seq view stands in for the decoder-only pages.
        auto* tab = w.findChild<InterventionsTab*>();
        QVERIFY(tab);
        Seq2SeqInterventionsView* view = tab->seq2seq();
        QSignalSpy lensDone(view, &Seq2SeqInterventionsView::computed);
        w.tabs()->setCurrentIndex(
            test_support::pageOf(w.tabs(), QString::fromLatin1(view_keys::kTabInterventions)));
        QVERIFY(view->isVisible());
        QVERIFY(!tab->pages()->isVisible());
        QVERIFY(lensDone.wait(60000));

        // Core's numbers for the same run: cross.0.1 ablated.
        const attn::model::Seq2SeqFolder folder =
            attn::model::open_seq2seq(QFile::encodeName(dir.path()).toStdString());
        const std::vector<std::int32_t> source = folder.source->encode(kSource.toStdString()),
                                        target =
                                            attn::decoder_inputs(folder, kTarget.toStdString()),
                                        corrupt = attn::decoder_inputs(
                                            folder, kCorruptTarget.toStdString());
        attn::model::Seq2SeqControls controls;
        controls.ablate = {{attn::model::Component::Cross, 0, 1}};
        const attn::interv::LensTable lens = attn::interv::seq2seq_lens_table(
            attn::interv::seq2seq_lens_logits(*folder.model, source, target, controls));
        attn::Matrix top(lens.layers, lens.positions);
        for (attn::Index r = 0; r < lens.layers; ++r)
            for (attn::Index c = 0; c < lens.positions; ++c)
                top(r, c) = lens.at(r, c).probabilities[0];
        QVERIFY2(relative(view->lensMap()->values(), top) < 1e-5,
                 qPrintable(QString::number(relative(view->lensMap()->values(), top))));
        QCOMPARE(int(view->lensMap()->rowLabels().size()),
                 int(folder.model->info().decoder_layers + 1));
        shot(w, QStringLiteral("seq2seq-lens"));

        // Component: Cross (End on the box), then the ablation map.
        view->componentBox()->setFocus();
        QTest::keyClick(view->componentBox(), Qt::Key_End);
        QCOMPARE(view->part(), attn::model::Component::Cross);
        view->pages()->setCurrentIndex(1);
        // Before its button, each map says how to fill it (it was a blank page).
        QVERIFY2(view->scanMap()->title().startsWith(QStringLiteral("Scan every head")),
                 qPrintable(view->scanMap()->title()));
        QVERIFY2(view->patchMap()->title().contains(QStringLiteral("then Patch every head")),
                 qPrintable(view->patchMap()->title()));
        clickAndWait(view, view->scanButton());
        QVERIFY2(view->scanMap()->title().startsWith(QStringLiteral("Cross: change")),
                 qPrintable(view->scanMap()->title()));
        const attn::interv::Seq2SeqAblationScan scan =
            attn::interv::seq2seq_ablation_scan(*folder.model, source, target, controls);
        QVERIFY2(relative(view->scanMap()->values(), scan.cross.cast<float>()) < 1e-4,
                 qPrintable(view->status()->text()));
        shot(w, QStringLiteral("seq2seq-scan"));
        // The head already ablated changes nothing when ablated again.
        QVERIFY(std::abs(view->scanMap()->values()(0, 1)) < 1e-5f);

        // Patching a corrupted target, each cross head, then the encoder's map (Home).
        view->pages()->setCurrentIndex(2);
        retype(view->corruptTargetEdit(), kCorruptTarget);
        QCOMPARE(corrupt.size(), target.size());
        attn::interv::Seq2SeqPatchSpec spec;
        spec.clean_source = spec.corrupt_source = source;
        spec.clean_target = target;
        spec.corrupt_target = corrupt;
        spec.controls = controls;
        const attn::Matrix
            clean = attn::model::teacher_forced(*folder.model, source, target, controls).logits,
            bad = attn::model::teacher_forced(*folder.model, source, corrupt, controls).logits;
        const attn::Vector gap = (clean.bottomRows(1) - bad.bottomRows(1)).transpose();
        gap.maxCoeff(&spec.answer);
        gap.minCoeff(&spec.wrong);
        retype(view->answerEdit(), QString::number(spec.answer));
        retype(view->wrongEdit(), QString::number(spec.wrong));
        clickAndWait(view, view->patchButton());
        const attn::interv::Seq2SeqPatchResult patch =
            attn::interv::seq2seq_patch(*folder.model, spec);
        QVERIFY2(relative(view->patchMap()->values(), patch.cross) < 1e-4,
                 qPrintable(view->status()->text()));
        shot(w, QStringLiteral("seq2seq-patch"));
        view->componentBox()->setFocus();
        QTest::keyClick(view->componentBox(), Qt::Key_Home);
        QCOMPARE(view->part(), attn::model::Component::Encoder);
        QVERIFY(relative(view->patchMap()->values(), patch.encoder) < 1e-4 ||
                patch.encoder.cwiseAbs().maxCoeff() < 1e-6f);
        QCOMPARE(int(view->patchMap()->rowLabels().size()),
                 int(folder.model->info().encoder_layers));
        // Another run: the maps of the last one go, and say again how to fill them.
        retype(dock->targetEdit(), kCorruptTarget);
        QTest::keyClick(dock->targetEdit(), Qt::Key_Return);
        QVERIFY(finished.wait(60000));
        test_support::settleAll(w.computeService());
        QCOMPARE(view->patchMap()->values().size(), attn::Index(0));
        QVERIFY2(view->patchMap()->title().contains(QStringLiteral("then Patch every head")),
                 qPrintable(view->patchMap()->title()));
    }
};

QTEST_MAIN(Seq2SeqInterventionsTest)
#include "seq2seq_interventions_test.moc"
