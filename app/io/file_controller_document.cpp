// AttnScope — the document a FileController shows: its files (one per undo state), Save and
// Save As, File ▸ Open Recent, the window's title. GPL-3.0-or-later.
#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QStatusBar>
#include <QUndoStack>

#include "attn/models/families.hpp"
#include "io/file_controller.hpp"
#include "io/model_dock.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"
#include "model/undo_command.hpp"

namespace fileio {

void FileController::replaceDocument(const attn::SceneSpec& spec, const QString& what,
                                     DocumentFiles files) {
    using Document = std::shared_ptr<DocumentFiles>;
    QUndoStack* undo = window_->scene()->undoStack();
    undo->beginMacro(what);
    window_->scene()->setSpec(spec, what);
    undo->push(new StateCommand<Document>(
        [this](const Document& d) {
            doc_ = d;
            updateTitle();
        },
        [this]() -> const Document& { return doc_; }, doc_,
        std::make_shared<DocumentFiles>(std::move(files)), what));
    undo->endMacro();
    updateTitle();
}

bool FileController::isScratchFile(const QString& path) {
    return QFileInfo::exists(
        QFileInfo(path).absoluteDir().filePath(QString::fromLatin1(kScratchMarker)));
}

void FileController::rememberFile(const QString& path) {
    // A file the Python module wrote only to hand it over is not the user's document.
    if (!isScratchFile(path)) window_->addRecentFile(path);
}

QString FileController::documentPath() const {
    if (!doc_->session.isEmpty()) return doc_->session;
    const attn::SceneSpec& spec = window_->scene()->spec();
    if (spec.is_loaded())
        return QFileInfo(QString::fromStdString(spec.data->source)).absoluteFilePath();
    // A model shows its own run on the sentence, not the token file opened before it.
    return spec.is_model() ? QString() : doc_->opened;
}

bool FileController::save() {
    const QString file = doc_->session;
    if (file.isEmpty()) return saveAs();
    QString error;
    if (!saveTo(file, &error)) {
        fail(error);
        return false;
    }
    window_->scene()->undoStack()->setClean();
    // Only a file that exists can be in File ▸ Recent (the menu drops files that are gone).
    rememberFile(file);
    window_->statusBar()->showMessage(tr("Saved %1").arg(file), 5000);
    updateTitle();
    return true;
}

bool FileController::saveAs() {
    QString path = QFileDialog::getSaveFileName(
        window_, tr("Save Session"),
        doc_->session.isEmpty() ? startDirectory() + QStringLiteral("/untitled.attnscope")
                                : doc_->session,
        tr("AttnScope sessions (*.attnscope)"));
    if (path.isEmpty()) return false;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".attnscope");
    // The document on show is now this session, in each of its undo states.
    const QString before = doc_->session;
    doc_->session = QFileInfo(path).absoluteFilePath();
    if (save()) return true;
    doc_->session = before;  // not written: the document keeps the file it had
    updateTitle();
    return false;
}

void FileController::updateTitle() {
    const attn::SceneSpec& spec = window_->scene()->spec();
    const QString doc = documentPath();
    // What the views show: a model's run or a data file (a model replaces the file it opened
    // over, so the file's name must go from the title with it).
    // A run of an encoder–decoder's folder is named as the model is (a Hugging Face cache's
    // snapshot by its repository, not by its hash); a file by its name.
    const QString source = spec.is_loaded() ? QString::fromStdString(spec.data->source) : QString();
    const QString shown =
        spec.is_model()    ? tr("model %1").arg(modelName(QString::fromStdString(spec.model->dir)))
        : spec.is_loaded() ? modelName(source)
                           : QString();
    const QString& session = doc_->session;
    QString name = !session.isEmpty() ? QFileInfo(session).fileName()
                   : spec.is_model()  ? shown
                   : doc.isEmpty()    ? tr("untitled")
                   : doc == source    ? shown
                                      : QFileInfo(doc).fileName();
    // A session showing a data file or a model names both: what is saved, and what is looked at.
    if (!session.isEmpty() && !shown.isEmpty()) name += tr(" (%1)").arg(shown);
    closeDataAction_->setEnabled(spec.is_loaded());
    window_->setWindowFilePath(doc);
    window_->setWindowTitle(tr("%1[*] — AttnScope").arg(name));
    window_->setWindowModified(!window_->scene()->undoStack()->isClean());
}

}  // namespace fileio
