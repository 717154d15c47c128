// A tour of every tab in the default 1280×800 window: each is drawn with its plots at a
// readable size (not blank, nothing squeezed under the minimum). With ATTN_SCREENSHOT_DIR set it
// also writes the README's tour (docs/screenshots/tour-*.png), drawn by the app itself — on the
// synthetic scene, a BERT file, the Marian cross-attention (tests/data/marian) and a GPT-2 model
// folder (the tiny one gpt2_tiny.py writes), whose Influence tab (influenceTour), Interventions
// pages and a generation follow the User Guide (interventionsTour); the Marian file on its Cross
// component; run with QT_SCALE_FACTOR=2 (ctest app.screenshot_tour_test_2x) the same at 192 dpi,
// "-2x" files. Loaded scenes leave out what does not read the scene (the playground, lenses of
// their own controls): the synthetic scene's pictures of them are the same.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "app_test_support.hpp"
#include "interventions_window.hpp"
#include "io/data_dock.hpp"
#include "io/data_io.hpp"
#include "io/file_controller.hpp"
#include "io/generate_panel.hpp"
#include "io/model_controller.hpp"
#include "lenses/lens_panel.hpp"
#include "lenses/lens_registry.hpp"
#include "model/influence_model.hpp"
#include "playground/playground_widget.hpp"
#include "tiny_folders.hpp"
#include "views/attribution_view.hpp"
#include "views/influence_view.hpp"
#include "views/interventions_list.hpp"
#include "views/logit_lens_view.hpp"
#include "views/model_grid.hpp"
#include "views/qcp.hpp"

class ScreenshotTourTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        test_support::isolateSettings();
        QCoreApplication::setApplicationName(QStringLiteral("AttnScopeTourTest"));
        // An autosave left by an interrupted run would be offered back in a modal dialog.
        QDir(fileio::FileController::autosaveFolder()).removeRecursively();
    }

    void tour_data() {
        QTest::addColumn<QString>("scene");
        QTest::newRow("synthetic") << QString();
        QTest::newRow("bert") << QStringLiteral("bert");
        QTest::newRow("marian") << QStringLiteral("marian");
        QTest::newRow("gpt2-model") << QStringLiteral("gpt2-model");
    }

    void tour() {
        QFETCH(QString, scene);
        prefix_ = scene.isEmpty() ? QString() : scene + QLatin1Char('-');
        MainWindow w;
        fileio::attachDataIo(&w, {});
        test_support::showWindow(w);
        if (scene == QLatin1StringView("bert")) {
            auto* files = w.findChild<fileio::FileController*>();
            files->setQuiet(true);
            QVERIFY(files->openFile(test_support::fixture("bertviz_distilbert_headview.json")));
        } else if (scene == QLatin1StringView("marian")) {
            auto* files = w.findChild<fileio::FileController*>();
            files->setQuiet(true);
            QVERIFY(files->openFile(
                QStringLiteral(ATTN_FIXTURES_DIR "/../marian/marian_en_de_cross.json")));
            // The cross-attention itself (the file opens on its encoder): decoder tokens over
            // encoder tokens, as the Alignment lens shows them.
            QComboBox* component = w.findChild<fileio::DataDock*>()->componentBox();
            const int cross = component->findText(QStringLiteral("Cross"), Qt::MatchContains);
            QVERIFY(cross >= 0);
            component->setCurrentIndex(cross);
            QVERIFY(w.scene()->spec().component == attn::Index(cross));
        } else if (scene == QLatin1StringView("gpt2-model")) {
            // A folder named as the pictures name it ("tiny-gpt2 · GPT-2"), not the temporary
            // folder's random name, which changed every picture's text at each regeneration.
            QTemporaryDir dir;
            const QString folder = dir.filePath(QStringLiteral("tiny-gpt2"));
            const QString error = test_support::writeTinyGpt2(folder);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            auto* models = w.findChild<fileio::ModelController*>();
            models->setQuiet(true);
            QVERIFY2(models->openModel(folder), qPrintable(models->lastError()));
            test_support::settle(w.computeService());
            runTour(w);
            influenceTour(w);
            interventionsTour(w);
            return;
        }
        runTour(w);
    }

  private:
    /// The Influence tab on a sentence of 13 tokens (the tiny GPT-2 has 16 positions): the strips
    /// beside where attention mattered (docs/attribution.md's picture), then the faithfulness
    /// curves and the agreement.
    void influenceTour(MainWindow& w) {
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the cat sat on")), QString());
        auto* view = w.findChild<InfluenceView*>();
        QVERIFY(view);
        w.tabs()->setCurrentWidget(view);
        QVERIFY(QTest::qWaitFor([&] { return view->model()->result() != nullptr; }, 60000));
        view->pages()->setCurrentIndex(0);
        shoot(w, view, QStringLiteral("influence"));
        view->pages()->setCurrentIndex(1);
        QTest::mouseClick(view->measureButton(), Qt::LeftButton);
        QVERIFY(QTest::qWaitFor([&] { return view->model()->faithfulness() != nullptr; }, 60000));
        shoot(w, view, QStringLiteral("influence-faithfulness"));
        view->pages()->setCurrentIndex(2);
        shoot(w, view, QStringLiteral("influence-agreement"));
    }

    /// The Interventions tab's pages and a generation on the tiny GPT-2, as the User Guide walks
    /// a newcomer through them: the logit lens, the attribution and a patching map of the
    /// model's own run (also the guide's own pictures, interventions-*.png), then a head ablated
    /// and an edge knocked out from the first page's fields and the induction test run, the
    /// heads with them in effect, then tokens generated.
    void interventionsTour(MainWindow& w) {
        QCOMPARE(test_support::typeSentence(w, QStringLiteral("the cat sat")), QString());
        auto* tab = w.findChild<InterventionsTab*>();
        QVERIFY(tab);
        w.tabs()->setCurrentWidget(tab);
        tab->pages()->setCurrentWidget(tab->lens());
        QVERIFY(QTest::qWaitFor([&] { return !tab->lens()->table().cells.empty(); }, 60000));
        shoot(w, tab, QStringLiteral("interventions-logit-lens"));
        tab->pages()->setCurrentWidget(tab->attribution());
        QVERIFY(QTest::qWaitFor([&] { return tab->attribution()->attribution().heads.size() > 0; },
                                60000));
        shoot(w, tab, QStringLiteral("interventions-attribution"));
        QCOMPARE(test_support::runPatching(tab, QStringLiteral("the dog sat"), QStringLiteral("42"),
                                           QStringLiteral("114")),
                 QString());
        shoot(w, tab, QStringLiteral("interventions-patching"));
        w.tabs()->setCurrentWidget(tab);
        InterventionsList* list = tab->inEffect();
        tab->pages()->setCurrentWidget(list);
        list->ablateLayer()->setValue(2);
        list->ablateHead()->setValue(1);
        QTest::mouseClick(list->ablateButton(), Qt::LeftButton);
        list->knockLayer()->setValue(1);
        list->knockHead()->setValue(2);
        list->knockQuery()->setValue(4);
        list->knockKey()->setValue(1);
        QTest::mouseClick(list->knockButton(), Qt::LeftButton);
        QCOMPARE(list->list()->count(), 2);
        QSignalSpy induction(list, &InterventionsList::inductionFinished);
        QTest::mouseClick(list->inductionButton(), Qt::LeftButton);
        QVERIFY(QTest::qWaitFor([&] { return induction.count() > 0; }, 60000));
        QVERIFY(list->inductionTable()->rowCount() > 0);
        shoot(w, tab, QStringLiteral("interventions-list"));

        shoot(w, w.heatmapGrid(), QStringLiteral("heads-interventions"));

        auto* generate = w.findChild<fileio::GeneratePanel*>();
        QVERIFY(generate);
        generate->tokensBox()->setValue(6);
        QSignalSpy generated(generate, &fileio::GeneratePanel::finished);
        QTest::mouseClick(generate->generateButton(), Qt::LeftButton);
        QVERIFY(QTest::qWaitFor([&] { return generated.count() > 0; }, 60000));
        test_support::settle(w.computeService());
        shoot(w, w.heatmapGrid(), QStringLiteral("generate"));
        w.scene()->undoStack()->setClean();
    }

    void runTour(MainWindow& w) {
        test_support::settle(w.computeService());
        w.scene()->setSelection(Selection{1, 2, 0});
        shoot(w, w.heatmapGrid(), QStringLiteral("heads"));

        const bool loaded = !prefix_.isEmpty();
        auto* pg = w.findChild<PlaygroundWidget*>();
        QVERIFY(pg);
        if (!loaded) shoot(w, pg, QStringLiteral("playground"));

        auto* theory = w.findChild<QTabWidget*>(QStringLiteral("theoryTabs"));
        QVERIFY(theory);
        QCOMPARE(theory->count(), int(lensNames().size()));
        for (int i = 0; i < theory->count(); ++i) {
            theory->setCurrentIndex(i);
            auto* lens = qobject_cast<LensPanel*>(theory->widget(i));
            QVERIFY(lens);
            if (loaded && lens->inputs() == LensInputs::Controls) continue;
            shoot(w, theory, QStringLiteral("theory-") + lens->lensName());
            for (QCustomPlot* plot : lens->plots())
                QVERIFY2(plot->width() >= LensPanel::kPlotMinimum.width() &&
                             plot->height() >= LensPanel::kPlotMinimum.height(),
                         qPrintable(lens->lensName()));
        }

        auto* model = w.findChild<ModelGrid*>();
        QVERIFY(model);
        // Any other tab (the Views tab, …) by its own name.
        for (int i = 0; i < w.tabs()->count(); ++i) {
            QWidget* tab = w.tabs()->widget(i);
            // The Influence tab has its own pictures of a model's run (influenceTour).
            if (tab == w.heatmapGrid() || tab == pg || tab == theory ||
                tab->objectName() == QLatin1StringView("modelTab") ||
                qobject_cast<InfluenceView*>(tab))
                continue;
            shoot(w, tab, w.tabs()->tabText(i).remove(QLatin1Char('&')).toLower());
        }

        QWidget* modelTab = w.findChild<QWidget*>(QStringLiteral("modelTab"));
        QVERIFY(modelTab);
        w.tabs()->setCurrentWidget(modelTab);
        QTRY_VERIFY(!model->thumbnails().images.empty());
        shoot(w, modelTab, QStringLiteral("model"));
        // Leave nothing to ask about when the window closes.
        w.scene()->undoStack()->setClean();
    }

    void shoot(MainWindow& w, QWidget* tab, const QString& name) {
        w.tabs()->setCurrentWidget(tab);
        for (int i = 0; i < 3; ++i)
            QCoreApplication::processEvents();
        test_support::settle(w.computeService());
        for (QCustomPlot* plot : w.findChildren<QCustomPlot*>())
            if (plot->isVisible()) plot->replot(QCustomPlot::rpImmediateRefresh);
        const QImage image = w.grab().toImage();
        const qreal dpr = w.devicePixelRatioF();
        QCOMPARE(image.size(), QSize(qRound(1280 * dpr), qRound(800 * dpr)));
        QVERIFY2(test_support::distinctColours(image) > 60, qPrintable(name));
        // The synthetic scene's files keep their README names; 192 dpi ones end in "-2x".
        const QString scale = dpr > 1.5 ? QStringLiteral("-2x") : QString();
        test_support::saveScreenshot(
            image, QStringLiteral("tour-") + prefix_ + name + scale + QStringLiteral(".png"));
        // The User Guide's pictures of the Interventions tab (docs/interventions.md).
        if (prefix_ == QLatin1StringView("gpt2-model-") && scale.isEmpty() &&
            (name == QLatin1StringView("interventions-patching") ||
             name == QLatin1StringView("interventions-logit-lens")))
            test_support::saveScreenshot(image, name + QStringLiteral(".png"));
    }
    QString prefix_;
};

QTEST_MAIN(ScreenshotTourTest)
#include "screenshot_tour_test.moc"
