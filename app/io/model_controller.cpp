// AttnScope — Model ▸ Open Model…, the models of the Hugging Face cache, Close Model.
// GPL-3.0-or-later.
#include "io/model_controller.hpp"

#include <QAction>
#include <QBoxLayout>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTimer>
#include <memory>

#include "attn/models/families.hpp"
#include "attn/models/hf_cache.hpp"
#include "attn/models/ollama.hpp"
#include "attn/models/seq2seq_scaling.hpp"
#include "attn/scene/model_scene.hpp"
#include "attn/scene/spec_edit.hpp"
#include "attn/util/error.hpp"
#include "io/generate_panel.hpp"
#include "io/local_path.hpp"
#include "io/model_dock.hpp"
#include "io/open_guard.hpp"
#include "io/seq2seq_dock.hpp"
#include "main_window.hpp"
#include "model/layer_cache.hpp"
#include "model/scene.hpp"
#include "model/scheduler.hpp"
#include "settings_keys.hpp"
#include "widgets/controls_dock.hpp"

namespace fileio {

ModelController::ModelController(MainWindow* window) : QObject(window), window_(window) {
    menu_ = new QMenu(tr("&Model"), window_);
    menu_->setObjectName(QStringLiteral("modelMenu"));
    window_->menuBar()->insertMenu(window_->viewMenu()->menuAction(), menu_);
    openAction_ = new QAction(tr("&Open Model…"), this);
    openAction_->setObjectName(QStringLiteral("actionOpenModel"));
    openAction_->setShortcut(QKeySequence(tr("Ctrl+Shift+M")));
    QStringList runs, ggufs;
    for (const attn::model::Family& f : attn::model::families()) {
        if (!runs.contains(QString::fromStdString(f.display)))
            runs << QString::fromStdString(f.display);
        if (f.open_gguf) ggufs << QString::fromStdString(f.model_type);
    }
    for (const attn::model::Seq2SeqFamily& f : attn::model::seq2seq_families())
        runs << QString::fromStdString(f.display);
    openAction_->setToolTip(
        tr("Run a model from a Hugging Face folder (config.json, model.safetensors and its "
           "tokenizer) or a GGUF file (%1) on the sentence: %2")
            .arg(ggufs.join(QStringLiteral(", ")), runs.join(QStringLiteral(", "))));
    connect(openAction_, &QAction::triggered, this, &ModelController::openWithDialog);
    closeAction_ = new QAction(tr("&Close Model"), this);
    closeAction_->setObjectName(QStringLiteral("actionCloseModel"));
    closeAction_->setToolTip(tr("Leave the model: back to the synthetic scene"));
    connect(closeAction_, &QAction::triggered, this, &ModelController::closeModel);
    // Listed afresh each time the menu opens (a download meanwhile shows up), by a worker: the
    // menu shows the last scan at once and is rebuilt when the new one arrives.
    connect(menu_, &QMenu::aboutToShow, this, &ModelController::rebuildMenu);
    connect(menu_, &QMenu::aboutToShow, this, &ModelController::scanCache);
    rebuildMenu();
    scanCache();

    dock_ = new ModelDock(window_->scene(), window_);
    // Generate lives in the dock, under the prediction (its own file: io/generate_panel.*).
    dock_->addPanel(new GeneratePanel(window_->scene()));
    window_->addDockWidget(Qt::RightDockWidgetArea, dock_);
    window_->viewMenu()->addAction(dock_->toggleViewAction());
    connect(window_, &MainWindow::resultChanged, dock_, &ModelDock::setResult);
    connect(window_->computeService(), &ComputeService::failed, dock_,
            [this](const QString& message) { dock_->setFailed(message); });
    // An encoder–decoder's sentences and Translate: shown while the scene is its run.
    // In the left column, under the controls (which a loaded run mostly disables): the right
    // column's query and data docks leave it too little height at 1280 × 800.
    seq2seq_ = new Seq2SeqDock(window_->scene(), window_);
    window_->addDockWidget(Qt::LeftDockWidgetArea, seq2seq_);
    window_->splitDockWidget(window_->controlsDock(), seq2seq_, Qt::Vertical);
    window_->viewMenu()->addAction(seq2seq_->toggleViewAction());
}

bool ModelController::showsSeq2Seq() const {
    const attn::SceneSpec& spec = window_->scene()->spec();
    // (The constructor's first menu comes before the dock.)
    return seq2seq_ && seq2seq_->folder() && spec.is_loaded() &&
           spec.data->source == seq2seq_->folder()->dir;
}

QList<ModelController::CachedModel> ModelController::cachedModels() {
    QList<CachedModel> out;
    for (const std::string& dir : attn::model::find_cached_models(attn::model::hub_cache_dir())) {
        const attn::model::FolderSummary about = attn::model::summarize_folder(dir);
        const QString path = QFile::decodeName(QByteArray::fromStdString(dir));
        out.append({path, tr("%1 — %2 · %3")
                              .arg(modelName(path), QString::fromStdString(about.display),
                                   QLocale().formattedDataSize(qint64(about.bytes)))});
    }
    for (const attn::model::OllamaModel& m :
         attn::model::find_ollama_models(attn::model::ollama_models_dir()))
        out.append({QFile::decodeName(QByteArray::fromStdString(m.blob)),
                    tr("%1 — %2 GGUF · %3")
                        .arg(QString::fromStdString(m.name), QString::fromStdString(m.architecture),
                             QLocale().formattedDataSize(qint64(m.bytes))),
                    true});
    return out;
}

void ModelController::scanCache() {
    Scheduler::instance().run(
        this, QStringLiteral("scan model cache"), [](attn::Progress&) { return cachedModels(); },
        [this](QList<CachedModel> found) {
            cached_ = std::move(found);
            scanned_ = true;
            rebuildMenu();
            Q_EMIT cacheScanned();
        });
}

void ModelController::rebuildMenu() {
    menu_->clear();
    menu_->addAction(openAction_);
    menu_->addAction(closeAction_);
    closeAction_->setEnabled(window_->scene()->spec().is_model() || showsSeq2Seq());
    menu_->addSection(tr("In the Hugging Face cache"));
    const QList<CachedModel>& found = cached_;
    const QString hub = QFile::decodeName(QByteArray::fromStdString(attn::model::hub_cache_dir()));
    if (!scanned_) {
        menu_->addAction(tr("Looking in %1…").arg(hub))->setEnabled(false);
        return;
    }
    const auto add = [this](const CachedModel& m) {
        QAction* a = menu_->addAction(m.label);
        a->setData(m.dir);
        a->setToolTip(m.dir);
        a->setStatusTip(m.dir);
        connect(a, &QAction::triggered, this, [this, dir = m.dir] { openModel(dir); });
    };
    bool any = false, ollama = false;
    for (const CachedModel& m : found)
        if (!m.ollama) add(m), any = true;
    if (!any) {
        QAction* none = menu_->addAction(tr("No models of a family AttnScope runs in %1").arg(hub));
        none->setEnabled(false);
    }
    for (const CachedModel& m : found) {
        if (!m.ollama) continue;
        if (!ollama) menu_->addSection(tr("In Ollama"));
        ollama = true;
        add(m);
    }
}

void ModelController::fail(const QString& message) {
    lastError_ = message;
    if (!quiet_) QMessageBox::warning(window_, tr("AttnScope"), message);
}

bool ModelController::openModel(const QString& path) {
    if (busy_) return false;
    if (confirmReplace_ && !confirmReplace_()) return false;
    busy_ = true;
    lastError_.clear();
    const QString dir = QFileInfo(path).absoluteFilePath();
    const QString name = modelName(dir);
    std::shared_ptr<const attn::model::ModelFolder> folder;
    // An encoder–decoder opens with a run: the typed target, or the model's translation.
    std::shared_ptr<const attn::model::Seq2SeqFolder> seq2seq;
    Seq2SeqInput input = seq2seqInput();
    Seq2SeqOutcome outcome;
    const bool done = openGuarded(
        window_, QStringLiteral("load model"), tr("Opening the model %1…").arg(name),
        tr("the model %1").arg(dir),
        [&](attn::Progress*) {
            const std::string local = localPath(dir);
            if (isSeq2SeqFolder(local)) {
                seq2seq = std::make_shared<const attn::model::Seq2SeqFolder>(
                    attn::model::open_seq2seq(local));
                outcome = runSeq2Seq(*seq2seq, input);
                return;
            }
            folder =
                std::make_shared<const attn::model::ModelFolder>(attn::model::open_folder(local));
        },
        OpenReport{window_->statusBar(), &lastError_, [this](const QString& m) { fail(m); }});
    busy_ = false;
    if (!done) return false;
    if (seq2seq) return openSeq2Seq(std::move(seq2seq), input, outcome, dir);
    // Only now, with every tensor read and checked, does the scene change: one undo step. The
    // sentence stays; the controls start at the model's own (scaled dot product, τ kept, its own
    // mask: causal, or none for a bidirectional encoder).
    // The last run's ids, scope and interventions (a head this model may not have) go with it.
    attn::SceneSpec spec = attn::without_run_state(window_->scene()->spec());
    spec.set_model(std::move(folder));
    spec.data_dk.reset();
    spec.component = spec.layer = 0;
    spec.tokens.clear();
    spec.cross_text.clear();
    spec.embeddings.reset();
    spec.weights.reset();
    spec.score = attn::ScoreKind::Dot;
    spec.scale = true;
    spec.mask = attn::model::own_mask(spec.model->model->info());
    // A sentence longer than the model reads would leave the previous scene's heads under an
    // error: the model opens on the sentence's first n_positions tokens instead, and says so.
    bool cut = false;
    const attn::Index positions = spec.model->model->info().max_positions;
    spec.text = attn::model::fit_text(*spec.model->tokenizer, spec.text, positions, &cut);
    replaceWithModel(spec, dir);
    window_->statusBar()->showMessage(
        cut ? tr("Opened the model %1; it reads %2 tokens at most, so the sentence was cut to "
                 "its first %2")
                  .arg(name)
                  .arg(positions)
            : tr("Opened the model %1").arg(name),
        cut ? 15000 : 5000);
    return true;
}

void ModelController::replaceWithModel(const attn::SceneSpec& spec, const QString& dir) {
    // A model replaces the document (as a file does): Save never writes it over the session
    // it was opened from, and Undo gives that session back.
    const QString what = tr("Open model %1").arg(modelName(dir));
    if (replaceDocument_)
        replaceDocument_(spec, what);
    else
        window_->scene()->setSpec(spec, what);
    QSettings().setValue(settings_keys::kLastModelDirectory, QFileInfo(dir).absolutePath());
}

void ModelController::openWithDialog() {
    const QString start = QSettings().value(settings_keys::kLastModelDirectory).toString();
    // One dialog for both kinds: a folder is opened by choosing its config.json.
    const QString file = QFileDialog::getOpenFileName(
        window_, tr("Open a Model (a folder's config.json, or a GGUF file)"),
        start.isEmpty() ? QDir::homePath() : start,
        tr("Models (config.json *.gguf);;GGUF files (*.gguf);;Hugging Face folders (config.json)"));
    if (file.isEmpty()) return;
    const QFileInfo chosen(file);
    openModel(chosen.fileName() == QLatin1String("config.json") ? chosen.absolutePath() : file);
}

Seq2SeqInput ModelController::seq2seqInput() const {
    Seq2SeqInput in;
    const QString typed = seq2seq_->sourceEdit()->text();
    in.source = typed.isEmpty() ? window_->scene()->spec().text : typed.toStdString();
    // The last model's translation is its output, not a target the user typed: the next model
    // translates for itself (its own vocabulary, perhaps fewer positions than that output).
    if (!seq2seq_->targetIsTranslation()) in.target = seq2seq_->targetEdit()->text().toStdString();
    in.translate = in.target.empty();
    in.options.beam = seq2seq_->beamBox()->value();
    in.options.max_tokens = seq2seq_->maxTokensBox()->value();
    return in;  // no heads ablated and the model's own scaling: another model's may not apply
}

bool ModelController::openSeq2Seq(std::shared_ptr<const attn::model::Seq2SeqFolder> folder,
                                  const Seq2SeqInput& input, const Seq2SeqOutcome& outcome,
                                  const QString& dir) {
    const QString name = modelName(dir);
    attn::SceneSpec spec = seq2seqSpec(attn::without_run_state(window_->scene()->spec()), outcome);
    spec.text = input.source;
    // The run's scaling, which the controls show (greyed: its weights cannot be rescaled).
    spec.scale = attn::model::scales_scores(folder->model->info(), input.options.controls);
    seq2seq_->setFolder(std::move(folder), input, outcome);
    replaceWithModel(spec, dir);
    // Its sentences and buttons in view, the controls above it giving way.
    window_->resizeDocks({seq2seq_}, {seq2seq_->wholeHeight()}, Qt::Vertical);
    window_->statusBar()->showMessage(
        tr("Opened the translation model %1: its cross-attention is shown").arg(name), 5000);
    return true;
}

void ModelController::takeSeq2Seq(std::shared_ptr<const attn::model::Seq2SeqFolder> folder,
                                  const Seq2SeqInput& input, const Seq2SeqOutcome& outcome) {
    seq2seq_->setFolder(std::move(folder), input, outcome);
    // Once the scene shows the run (the dock is hidden until then): its rows in view.
    QTimer::singleShot(0, this, [this] {
        window_->resizeDocks({seq2seq_}, {seq2seq_->wholeHeight()}, Qt::Vertical);
    });
}

void ModelController::closeModel() {
    Scene* scene = window_->scene();
    attn::SceneSpec spec = scene->spec();
    if (showsSeq2Seq()) {
        const QString name = modelName(QString::fromStdString(spec.data->source));
        spec.set_synthetic();
        spec.component = spec.layer = 0;
        scene->setSpec(spec, tr("Close the model %1").arg(name));
        return;
    }
    if (!spec.is_model()) return;
    const QString name = modelName(QString::fromStdString(spec.model->dir));
    spec = attn::without_run_state(std::move(spec));  // its interventions end with the run
    spec.set_synthetic();
    spec.layer = 0;
    scene->setSpec(spec, tr("Close the model %1").arg(name));
    LayerCache::of(scene)->release();  // a long sentence's run can hold gigabytes of stages
}

}  // namespace fileio
