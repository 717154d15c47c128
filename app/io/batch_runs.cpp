// AttnScope — the Batch tab wired into the window. GPL-3.0-or-later.
#include "io/batch_runs.hpp"

#include <QDir>
#include <QFileInfo>
#include <QLineEdit>
#include <QStatusBar>
#include <QTabWidget>

#include "attn/scene/spec_edit.hpp"
#include "io/file_controller.hpp"
#include "io/fileio_tr.hpp"
#include "io/model_controller.hpp"
#include "main_window.hpp"
#include "model/batch_document.hpp"
#include "model/scene.hpp"
#include "views/batch_view.hpp"
#include "views/heatmap_grid.hpp"
#include "views/interventions_tab.hpp"
#include "views/patching_view.hpp"

namespace fileio {

namespace {
inline constexpr char kTabBatch[] = "batch";
}  // namespace

BatchRuns::BatchRuns(MainWindow* window, FileController* files, ModelController* models,
                     InterventionsTab* interventions, QWidget* modelTab)
    : QObject(window),
      window_(window),
      models_(models),
      interventions_(interventions),
      modelTab_(modelTab),
      doc_(new BatchDocument(this)),
      view_(new BatchView(doc_, window)) {
    view_->hide();  // the window's until the first batch result puts it in a tab
    connect(files, &FileController::batchOpened, this, &BatchRuns::show);
    connect(view_, &BatchView::exampleActivated, this, &BatchRuns::openExample);
}

void BatchRuns::show(std::shared_ptr<const BatchSummary> batch) {
    doc_->setSummary(std::move(batch));
    // The tab comes with the first batch result: a window that never opens one has no empty
    // tab for it.
    if (!added_) {
        window_->addView(view_, kTabBatch, tr("Batch"));
        window_->setTabDocks(view_, {});
        added_ = true;
    }
    window_->tabs()->setCurrentWidget(view_);
}

bool BatchRuns::refuse(const QString& message) {
    lastError_ = message;
    view_->setStatus(message, true);
    window_->statusBar()->showMessage(message, 10000);
    return false;
}

bool BatchRuns::openExample(int index) {
    lastError_.clear();
    if (!doc_->result() || index < 0 || index >= doc_->examples()) return false;
    const BatchExample x = doc_->example(index);
    const QString file = QFileInfo(doc_->path()).fileName();
    const QString what = x.line > 0 ? tr("line %1").arg(x.line) : tr("example %1").arg(index + 1);
    const QString dir = doc_->modelDir();
    if (dir.isEmpty())
        return refuse(tr("%1 names no model folder (meta/model): %2 cannot be opened as a run.")
                          .arg(file, what));
    // A relative folder is relative to the result (a folder moved with its model).
    const QString folder = QFileInfo(QFileInfo(doc_->path()).absoluteDir(), dir).absoluteFilePath();
    if (!QFileInfo(folder).isDir())
        return refuse(tr("The model folder %1 that %2 names does not exist (moved or deleted?): "
                         "%3 cannot be opened as a run. The batch result stays on show.")
                          .arg(folder, file, what));
    if (x.text.isEmpty()) return refuse(tr("%1 holds no prompt for %2.").arg(file, what));
    const attn::SceneSpec& now = window_->scene()->spec();
    const bool running =
        now.is_model() && QFileInfo(QString::fromStdString(now.model->dir)) == QFileInfo(folder);
    if (!running && !models_->openModel(folder))
        return refuse(models_->lastError().isEmpty()
                          ? tr("Opening the model folder %1 was cancelled.").arg(folder)
                          : models_->lastError());
    window_->scene()->setSpec(attn::with_text(window_->scene()->spec(), x.text.toStdString()),
                              tr("Open %1 of %2").arg(what, file));
    const QString analysis = doc_->analysis();
    if (analysis == QLatin1StringView("patch")) {
        window_->tabs()->setCurrentWidget(interventions_);
        PatchingView* patching = interventions_->patching();
        interventions_->pages()->setCurrentWidget(patching);
        patching->stop();  // a previous example's run, superseded
        patching->corruptEdit()->setText(x.corrupt);
        patching->answerEdit()->setText(x.answer);
        patching->wrongEdit()->setText(x.wrong);
        patching->start();
    } else if (analysis == QLatin1StringView("census")) {
        window_->tabs()->setCurrentWidget(modelTab_);
    } else {
        window_->tabs()->setCurrentWidget(window_->heatmapGrid());
    }
    view_->setStatus(tr("Opened %1 of %2 as the window's run (%3).").arg(what, file, analysis));
    return true;
}

}  // namespace fileio
