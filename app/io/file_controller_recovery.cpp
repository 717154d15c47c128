// AttnScope — which document an autosave belongs to: written beside it, named by the recovery
// question, and given back to the restored scene (title, Save). GPL-3.0-or-later.
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QSaveFile>
#include <QStatusBar>
#include <QUndoStack>

#include "io/file_controller.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"

namespace fileio {

QString FileController::autosaveOriginPath(const QString& autosaveFile) {
    return autosaveFile + QStringLiteral(".origin.json");
}

void FileController::writeAutosaveOrigin(const QString& autosaveFile) const {
    QJsonObject origin;
    origin.insert(QStringLiteral("session"), currentFile_);
    origin.insert(QStringLiteral("document"), documentPath());
    QSaveFile file(autosaveOriginPath(autosaveFile));
    // Without it a restore is still whole, only unnamed: a failure here is not worth a message.
    if (file.open(QIODevice::WriteOnly)) {
        file.write(QJsonDocument(origin).toJson(QJsonDocument::Compact));
        file.commit();
    }
}

FileController::AutosaveOrigin FileController::readAutosaveOrigin(const QString& autosaveFile) {
    QFile file(autosaveOriginPath(autosaveFile));
    if (!file.open(QIODevice::ReadOnly)) return {};
    const QJsonObject o = QJsonDocument::fromJson(file.read(64 * 1024)).object();
    return {o.value(QStringLiteral("session")).toString(),
            o.value(QStringLiteral("document")).toString()};
}

QString FileController::recoveryQuestion(const AutosaveOrigin& origin, const QDateTime& savedAt) {
    const QString when = QLocale().toString(savedAt, QLocale::ShortFormat);
    const QString what = origin.document.isEmpty()
                             ? tr("the untitled scene")
                             : tr("%1 (in %2)")
                                   .arg(QFileInfo(origin.document).fileName(),
                                        QFileInfo(origin.document).absolutePath());
    return tr("AttnScope did not close normally.\n\nRestore the unsaved changes to %1, autosaved "
              "at %2?")
        .arg(what, when);
}

void FileController::restoreOrigin(const AutosaveOrigin& origin) {
    // Save writes to the session the changes were made to, never to the autosave file; a
    // document that was data or tokens stays unsaved until Save asks where.
    currentFile_ = origin.session;
    openedFile_ = origin.session.isEmpty() ? origin.document : QString();
    // Restored work is not saved anywhere yet: it stays modified.
    window_->scene()->undoStack()->resetClean();
    updateTitle();
    window_->statusBar()->showMessage(
        origin.document.isEmpty()
            ? tr("Restored the autosaved scene")
            : tr("Restored the autosaved changes to %1").arg(QFileInfo(origin.document).fileName()),
        5000);
}

}  // namespace fileio
