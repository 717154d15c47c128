// AttnScope — plugs data in/out (files, sessions, export, model view) into the main window.
// GPL-3.0-or-later.
#include "io/data_io.hpp"

#include <QSplitter>
#include <QTabWidget>
#include <QTimer>

#include "export/export_controller.hpp"
#include "io/batch_runs.hpp"
#include "io/data_dock.hpp"
#include "io/file_controller.hpp"
#include "io/model_controller.hpp"
#include "io/model_dock.hpp"
#include "io/seq2seq_dock.hpp"
#include "io/seq2seq_interventions_wiring.hpp"
#include "io/seq2seq_session.hpp"
#include "io/single_instance.hpp"
#include "main_window.hpp"
#include "model/view_state.hpp"
#include "tab_docks.hpp"
#include "views/batch_view.hpp"
#include "views/census_table.hpp"
#include "views/heatmap_grid.hpp"
#include "views/influence_view.hpp"
#include "views/interventions_tab.hpp"
#include "views/model_grid.hpp"
#include "views/views_tab.hpp"
#include "widgets/controls_dock.hpp"

namespace fileio {

FileController* attachDataIo(MainWindow* window, const QStringList& files) {
    auto* files_ = new FileController(window);
    auto* exports = new exporting::ExportController(window);
    auto* models = new ModelController(window);  // Model ▸ and its dock, beside the data's
    models->setConfirmReplace([files_] { return files_->maybeSave(); });
    models->setReplaceDocument([files_](const attn::SceneSpec& spec, const QString& what) {
        files_->replaceDocument(spec, what);
    });
    // A session's encoder–decoder run goes to the Translation dock.
    files_->setSeq2SeqTaker([models](const ReopenedSeq2Seq& run) {
        models->takeSeq2Seq(run.folder, run.input, run.outcome);
    });
    auto* data = new DataDock(window->scene(), window);
    window->addDockWidget(Qt::RightDockWidgetArea, data);
    window->viewMenu()->addAction(data->toggleViewAction());
    auto* model = new ModelGrid(window->scene(), window->computeService());
    model->setObjectName(QStringLiteral("modelGrid"));
    // The Model view colours with the controls' colour map, as the heatmaps do.
    model->setColorMap(window->controlsDock()->style().colorMap);
    QObject::connect(ViewState::of(window->scene()), &ViewState::styleChanged, model,
                     [model](const HeatmapStyle& style) { model->setColorMap(style.colorMap); });
    // The Model tab: every head's thumbnail above the census that names them.
    auto* census = new CensusTable(window->scene());
    auto* modelTab = new QSplitter(Qt::Vertical);
    modelTab->setObjectName(QStringLiteral("modelTab"));
    modelTab->addWidget(model);
    modelTab->addWidget(census);
    modelTab->setStretchFactor(0, 3);
    modelTab->setStretchFactor(1, 2);
    window->addView(modelTab, view_keys::kTabModel, QObject::tr("Model"));
    // The thumbnails follow the scene's controls; the selected query is the Heads tab's.
    window->setTabDocks(modelTab, {window->sentenceDock(), window->controlsDock()});
    // Interventions: every method reads the model's run of the sentence (the sentence dock
    // stays to edit it).
    auto* interventions = new InterventionsTab(window->scene());
    window->addView(interventions, view_keys::kTabInterventions, QObject::tr("Interventions"));
    window->setTabDocks(interventions, {window->sentenceDock()});
    connectSeq2SeqInterventions(window, models, interventions);
    // Influence, beside it: what each token contributed to one prediction (issue #39); each
    // panel exports through File ▸ Export's dialog.
    auto* influence = new InfluenceView(window->scene());
    window->addView(influence, view_keys::kTabInfluence, QObject::tr("Influence"));
    window->setTabDocks(influence, {window->sentenceDock()});
    QObject::connect(influence, &InfluenceView::exportRequested, exports,
                     &exporting::ExportController::exportPanel);
    // The docks of a loaded run or an open model show on the tabs that use them: never on the
    // Playground (its own controls), the Batch tab or the Theory tab (its lenses read no model's
    // run, and need the width beside the sentence). The Loaded data dock's component, layer
    // and head are the heads', the views', the thumbnails' and the Alignment lens's; the
    // Interventions and Influence tabs pick their own component, and are given the width.
    QWidget* theory = window->findChild<QTabWidget*>(QStringLiteral("theoryTabs"));
    QWidget* heads = window->heatmapGrid();
    QWidget* views = window->viewsTab();
    const QList<QWidget*> runTabs{heads, views, modelTab, interventions, influence};
    auto* tabDocks = window->findChild<TabDocks*>();
    tabDocks->setDockTabs(models->seq2seqDock(), runTabs);
    tabDocks->setDockTabs(models->dock(), runTabs);
    tabDocks->setDockTabs(data, {heads, theory, views, modelTab});
    // File ▸ Open of a batch result: the Batch tab, each panel exported through File ▸ Export's
    // dialog.
    auto* batch = new BatchRuns(window, files_, models, interventions, modelTab);
    QObject::connect(batch->view(), &BatchView::exportRequested, exports,
                     &exporting::ExportController::exportPanel);
    QObject::connect(census, &CensusTable::headActivated, model, &ModelGrid::openHead);
    QObject::connect(model, &ModelGrid::headActivated, window, [window](int, int head) {
        window->tabs()->setCurrentWidget(window->heatmapGrid());
        window->heatmapGrid()->setFocusedHead(head);
    });
    // After the window is up: recovery first (it may replace the scene), then the command line.
    QTimer::singleShot(0, files_, [files_, files] {
        files_->offerRecovery();
        for (const QString& f : files)
            if (!f.startsWith(QLatin1Char('-')) && files_->openFile(f))
                noteOpened(files_->documentPath());
    });
    return files_;
}

}  // namespace fileio
