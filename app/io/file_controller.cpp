// AttnScope — File ▸ Open / Save / Save As / Recent, drag and drop, unsaved-changes prompt,
// autosave and crash recovery. GPL-3.0-or-later.
#include "io/file_controller.hpp"
#include "io/local_path.hpp"

#include <QAction>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTimer>
#include <QUndoStack>

#include "attn/io/formats.hpp"
#include "attn/io/session/session.hpp"
#include "attn/models/families.hpp"
#include "attn/util/error.hpp"
#include "export/output_device.hpp"
#include "io/autosave_file.hpp"
#include "io/file_loader.hpp"
#include "io/model_dock.hpp"
#include "io/open_guard.hpp"
#include "io/seq2seq_session.hpp"
#include "io/session_state.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "settings_keys.hpp"
#include "widgets/alert_banner.hpp"

namespace fileio {
FileController::FileController(MainWindow* window) : QObject(window), window_(window) {
    connect(window_->openAction(), &QAction::triggered, this, &FileController::openWithDialog);
    connect(window_->saveAction(), &QAction::triggered, this, &FileController::save);
    window_->openAction()->setEnabled(true);
    window_->saveAction()->setEnabled(true);
    window_->saveAction()->setText(tr("&Save"));
    saveAsAction_ = new QAction(tr("Save &As…"), this);
    saveAsAction_->setObjectName(QStringLiteral("actionSaveAs"));
    saveAsAction_->setShortcut(QKeySequence::SaveAs);
    saveAsAction_->setToolTip(tr("Save the scene to a new session file"));
    connect(saveAsAction_, &QAction::triggered, this, &FileController::saveAs);
    embeddingsAction_ = new QAction(tr("Load &Embeddings…"), this);
    embeddingsAction_->setObjectName(QStringLiteral("actionLoadEmbeddings"));
    embeddingsAction_->setToolTip(
        tr("Use explicit token embeddings (.npy or .csv, one row per token) instead of the "
           "hashed ones"));
    connect(embeddingsAction_, &QAction::triggered, this,
            &FileController::loadEmbeddingsWithDialog);
    newAction_ = new QAction(tr("&New"), this);
    newAction_->setObjectName(QStringLiteral("actionNew"));
    newAction_->setShortcut(QKeySequence::New);
    newAction_->setToolTip(tr("Start again from the synthetic default scene"));
    connect(newAction_, &QAction::triggered, this, &FileController::newScene);
    closeDataAction_ = new QAction(tr("&Close Data"), this);
    closeDataAction_->setObjectName(QStringLiteral("actionCloseData"));
    closeDataAction_->setToolTip(tr("Leave the loaded attention: back to the synthetic scene"));
    connect(closeDataAction_, &QAction::triggered, this, &FileController::closeData);
    embedAction_ = new QAction(tr("E&mbed Loaded Data in Sessions"), this);
    embedAction_->setObjectName(QStringLiteral("actionEmbedData"));
    embedAction_->setCheckable(true);
    embedAction_->setChecked(QSettings().value(settings_keys::kEmbedData, false).toBool());
    embedAction_->setToolTip(
        tr("On: a saved session holds the loaded attention itself (larger, needs no other "
           "file). Off: it refers to the data file by a path relative to the session."));
    connect(embedAction_, &QAction::toggled, this, &FileController::setEmbedData);
    QMenu* file = window_->fileMenu();
    QAction* exportAction = window_->exportAction();
    file->insertAction(window_->openAction(), newAction_);
    file->insertAction(exportAction, saveAsAction_);
    file->insertAction(exportAction, embedAction_);
    file->insertAction(exportAction, embeddingsAction_);
    file->insertAction(exportAction, closeDataAction_);
    connect(window_, &MainWindow::recentFileRequested, this, &FileController::openReplacing);
    addExamplesMenu(file);

    window_->setAcceptDrops(true);
    window_->installEventFilter(this);
    connect(window_->scene()->undoStack(), &QUndoStack::cleanChanged, this,
            &FileController::updateTitle);
    // The title names the data on show, so it follows undo, Close Data and component changes.
    connect(window_->scene(), &Scene::specChanged, this, &FileController::updateTitle);
    autosave_ = std::make_unique<AutosaveFile>();
    autosaveTimer_ = new QTimer(this);
    autosaveTimer_->setInterval(autosaveEveryMs_);
    connect(autosaveTimer_, &QTimer::timeout, this, &FileController::autosave);
    autosaveTimer_->start();
    autosaveBanner_ = new AlertBanner(tr("Retry now"));
    autosaveBanner_->setObjectName(QStringLiteral("autosaveBanner"));
    window_->addBanner(autosaveBanner_);
    connect(autosaveBanner_, &AlertBanner::actionClicked, this, &FileController::autosave);
    // Nothing unsaved: nothing to back up, and no warning about it is due.
    connect(window_->scene()->undoStack(), &QUndoStack::cleanChanged, this, [this](bool clean) {
        if (clean)
            setAutosaveError({});
        else
            checkAutosaveRoom();
    });
    updateTitle();
}

FileController::~FileController() = default;

QString FileController::openFilter() {
    // The registry's filter, each format's name through the translator (context "formats").
    QStringList parts =
        QString::fromStdString(attn::io::open_dialog_filter()).split(QStringLiteral(";;"));
    for (QString& part : parts) {
        const qsizetype open = part.lastIndexOf(QStringLiteral(" ("));
        part = QCoreApplication::translate("formats", part.left(open).toUtf8().constData()) +
               part.mid(open);
    }
    return parts.join(QStringLiteral(";;"));
}

QString FileController::startDirectory() const {
    const QString last = QSettings().value(settings_keys::kLastDirectory).toString();
    return last.isEmpty() ? QDir::homePath() : last;
}

void FileController::fail(const QString& message) {
    lastError_ = message;
    if (!quiet_) QMessageBox::warning(window_, tr("AttnScope"), message);
}

bool FileController::openFile(const QString& path) {
    // The file replaces what is shown: unsaved changes are offered a save first, as by New.
    if (!maybeSave()) return false;
    return open(path, true);
}

bool FileController::open(const QString& path, bool remember, const DocumentFiles* as,
                          const QString& undoText) {
    if (busy_) return false;
    busy_ = true;
    lastError_.clear();
    lastWarning_.clear();
    Scene* scene = window_->scene();
    const QString name = QFileInfo(path).fileName();
    Opened opened;
    const attn::SceneSpec current = scene->spec();
    const bool done = openGuarded(
        window_, QStringLiteral("load file"), tr("Loading %1…").arg(name), path,
        [&](attn::Progress* p) {
            // A directory, a device or an empty file: core's reader says which, plainly.
            if (!QFileInfo::exists(path))
                throw attn::FormatError(path.toStdString() + ": no such file");
            opened = readFile(path, current, p);
        },
        OpenReport{window_->statusBar(), &lastError_, [this](const QString& m) { fail(m); }});
    busy_ = false;
    if (!done) return false;
    const QString file = QFileInfo(path).absoluteFilePath();
    if (opened.batch) {
        // A batch result is no scene: the document on show stays, undo and all.
        Q_EMIT batchOpened(opened.batch);
        if (remember) rememberFile(file);
        window_->statusBar()->showMessage(tr("Opened the batch result %1").arg(name), 5000);
        return true;
    }
    if (opened.seq2seq && seq2seqTaker_) seq2seqTaker_(*opened.seq2seq);
    // Only now, with everything read and checked, does the scene change: one undo step, which
    // holds the document's files too. Another file than a session is a document no session
    // holds yet: Save asks where, never overwriting the session that was open before.
    replaceDocument(opened.spec, undoText.isEmpty() ? opened.undoText : undoText,
                    as                 ? *as
                    : opened.isSession ? DocumentFiles{file, {}}
                                       : DocumentFiles{{}, file});
    if (opened.isSession)
        restoreViewState(*window_, QJsonDocument::fromJson(opened.viewsJson.toUtf8()).object());
    // Just opened, the document has no unsaved changes (the open itself stays undoable).
    scene->undoStack()->setClean();
    if (remember) rememberFile(file);
    updateTitle();
    lastWarning_ = opened.warning;
    if (lastWarning_.isEmpty()) {
        window_->statusBar()->showMessage(tr("Opened %1").arg(name), 5000);
    } else {
        // Opened, but not what was saved: said where it stays visible, and asked to be read.
        window_->statusBar()->showMessage(lastWarning_);
        if (!quiet_) QMessageBox::warning(window_, tr("AttnScope"), lastWarning_);
    }
    return true;
}

bool FileController::openReplacing(const QString& path) {
    // openFile asks the unsaved-changes question itself.
    if (busy_) return false;
    return openFile(path);
}

void FileController::openWithDialog() {
    // Asked before the dialog, so a Cancel costs no browsing; then opened without asking again.
    if (!maybeSave()) return;
    const QString path =
        QFileDialog::getOpenFileName(window_, tr("Open"), startDirectory(), openFilter());
    if (!path.isEmpty()) open(path, true);
}

void FileController::loadEmbeddingsWithDialog() {
    const QString path =
        QFileDialog::getOpenFileName(window_, tr("Load Embeddings"), startDirectory(),
                                     tr("Embeddings (*.npy *.csv);;All files (*)"));
    if (path.isEmpty() || busy_) return;
    // Read as the "load file" job, as every file is: the window stays live on a large file.
    busy_ = true;
    const QString name = QFileInfo(path).fileName();
    const attn::SceneSpec current = window_->scene()->spec();
    attn::SceneSpec spec;
    const bool done = openGuarded(
        window_, QStringLiteral("load file"), tr("Loading %1…").arg(name), path,
        [&](attn::Progress*) { spec = withEmbeddings(path, current); },
        OpenReport{window_->statusBar(), &lastError_, [this](const QString& m) { fail(m); }});
    busy_ = false;
    if (done) window_->scene()->setSpec(spec, tr("Load embeddings %1").arg(name));
}

bool FileController::saveTo(const QString& path, QString* error) {
    // Never through a link, over the loaded data, or over a read-only file.
    const attn::SceneSpec& shown = window_->scene()->spec();
    const QString refused = exporting::checkOutput(
        path,
        shown.is_loaded() ? QStringList{QString::fromStdString(shown.data->source)} : QStringList{},
        false, tr("make it writable to replace it"));
    if (!refused.isEmpty()) {
        *error = tr("Cannot save: %1").arg(refused);
        return false;
    }
    try {
        attn::io::Session session;
        session.spec = window_->scene()->spec();
        // An encoder–decoder's run is saved as the run (its folder, sentences and controls),
        // not as its attention: reopening runs the model again.
        if (const Seq2SeqShown::Run* run =
                Seq2SeqShown::of(window_->scene())->matching(session.spec)) {
            session.seq2seq = seq2seqSession(*run, session.spec);
            session.model_path = run->folder->dir;
            session.spec.set_synthetic();
        }
        // Other attention whose source is a folder (a model's run) has no file to name: it is
        // embedded whatever File ▸ Embed Data says.
        session.embed_data =
            session.spec.is_loaded() &&
            (embedData() || QFileInfo(QString::fromStdString(session.spec.data->source)).isDir());
        if (session.spec.is_loaded() && !session.embed_data) {
            // Referenced, not copied: relative to the session (so a folder holding both can
            // move), with where it was as a fallback.
            const QString data =
                QFileInfo(QString::fromStdString(session.spec.data->source)).absoluteFilePath();
            session.data_path = attn::io::relative_data_path(
                localPath(QFileInfo(path).absoluteFilePath()), localPath(data));
            session.data_absolute_path = localPath(data);
            session.spec.set_synthetic();  // the session names the file instead
        }
        session.views =
            QJsonDocument(captureViewState(*window_)).toJson(QJsonDocument::Compact).toStdString();
        // Core's saver: atomic (a unique temporary file + rename, keeping the replaced file's
        // permissions), the session's one writer.
        attn::io::save_session(QFile::encodeName(path).toStdString(), session);
    } catch (const std::exception& e) {
        *error = tr("Cannot save %1: %2").arg(path, QString::fromUtf8(e.what()));
        return false;
    }
    return true;
}

bool FileController::newScene() {
    if (!maybeSave()) return false;
    Scene* scene = window_->scene();
    scene->undoStack()->clear();
    scene->resetSpec(attn::SceneSpec{});
    scene->setSelection(Selection{1, -1, 0});
    doc_ = std::make_shared<DocumentFiles>();
    scene->undoStack()->setClean();
    updateTitle();
    window_->statusBar()->showMessage(tr("New synthetic scene"), 5000);
    return true;
}

void FileController::closeData() {
    Scene* scene = window_->scene();
    attn::SceneSpec spec = scene->spec();
    if (!spec.is_loaded()) return;
    const QString name = QFileInfo(QString::fromStdString(spec.data->source)).fileName();
    spec.set_synthetic();
    spec.component = spec.layer = 0;
    spec.data_dk.reset();
    scene->setSpec(spec, tr("Close %1").arg(name));
    doc_->opened.clear();
    updateTitle();
}

bool FileController::embedData() const {
    return embedAction_->isChecked();
}

void FileController::setEmbedData(bool on) {
    embedAction_->setChecked(on);
    QSettings().setValue(settings_keys::kEmbedData, on);
}

bool FileController::maybeSave() {
    if (window_->scene()->undoStack()->isClean() || quiet_) return true;
    const auto answer = QMessageBox::warning(
        window_, tr("AttnScope"), tr("The scene has unsaved changes.\nDo you want to save them?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel) return false;
    if (answer == QMessageBox::Save) return save();
    return true;
}

bool FileController::eventFilter(QObject* watched, QEvent* event) {
    if (watched != window_) return QObject::eventFilter(watched, event);
    switch (event->type()) {
        case QEvent::DragEnter: {
            auto* e = static_cast<QDragEnterEvent*>(event);
            if (e->mimeData()->hasUrls() && e->mimeData()->urls().first().isLocalFile())
                e->acceptProposedAction();
            return true;
        }
        case QEvent::Drop: {
            auto* e = static_cast<QDropEvent*>(event);
            const auto urls = e->mimeData()->urls();
            if (!urls.isEmpty() && urls.first().isLocalFile()) {
                e->acceptProposedAction();
                // Open after the drop returns: a message box inside a drop handler would
                // block the drag source.
                const QString path = urls.first().toLocalFile();
                QTimer::singleShot(0, this, [this, path] { openFile(path); });
            }
            return true;
        }
        case QEvent::Close:
            if (!maybeSave()) {
                event->ignore();
                return true;
            }
            autosave_->remove();  // a clean exit: nothing to recover
            return false;
        default:
            return QObject::eventFilter(watched, event);
    }
}

}  // namespace fileio
