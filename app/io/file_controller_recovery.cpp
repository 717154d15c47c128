// AttnScope — the FileController's autosave and crash recovery: each window autosaves to a
// file of its own, and a start offers what crashed instances left. GPL-3.0-or-later.
#include "io/autosave_file.hpp"
#include "io/file_controller.hpp"

#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QStatusBar>
#include <QStorageInfo>
#include <QTimer>
#include <QUndoStack>
#include <algorithm>

#include "main_window.hpp"
#include "model/scene.hpp"
#include "widgets/alert_banner.hpp"

namespace fileio {

QString FileController::autosavePath() const {
    return autosave_->path();
}

QString FileController::autosaveFolder() {
    return AutosaveFile::folder();
}

void FileController::autosave() {
    if (window_->scene()->undoStack()->isClean()) {
        setAutosaveError({});
        return;
    }
    QString error;
    if (!saveTo(autosavePath(), &error)) {
        setAutosaveError(error.isEmpty() ? tr("cannot write %1").arg(autosavePath()) : error);
        return;
    }
    autosave_->setDocument(documentPath(), doc_->session);
    autosaveBytes_ = QFileInfo(autosavePath()).size();
    setAutosaveError({});
}

void FileController::setVolumeProbe(std::function<qint64(const QString&)> probe) {
    volumeFree_ = std::move(probe);
}

void FileController::checkAutosaveRoom() {
    // A session without embedded data is a few kB; the last autosave says what this one needs.
    constexpr qint64 kLeast = 64 * 1024;
    const QString folder = autosaveFolder();
    const qint64 free = volumeFree_ ? volumeFree_(folder) : [&folder] {
        const QStorageInfo volume(folder);
        return volume.isValid() && volume.isReady() ? volume.bytesAvailable() : qint64(-1);
    }();
    const qint64 need = std::max(kLeast, 2 * autosaveBytes_);
    if (free < 0 || free >= need) return;
    setAutosaveError(
        tr("the volume of %1 has %2 free, less than an autosave needs (%3)")
            .arg(folder, QLocale().formattedDataSize(free), QLocale().formattedDataSize(need)));
}

void FileController::setAutosaveIntervals(int everyMs, int retryMs) {
    autosaveEveryMs_ = everyMs;
    autosaveRetryMs_ = retryMs;
    autosaveTimer_->setInterval(autosaveBanner_->isHidden() ? everyMs : retryMs);
}

void FileController::setAutosaveError(const QString& error) {
    const bool failing = !error.isEmpty();
    // While it fails the autosave is tried again soon; once it works, every minute again.
    const int interval = failing ? autosaveRetryMs_ : autosaveEveryMs_;
    if (autosaveTimer_->interval() != interval) autosaveTimer_->setInterval(interval);
    if (!failing) {
        if (!autosaveBanner_->isHidden()) {
            autosaveBanner_->clear();
            window_->statusBar()->showMessage(tr("Autosaved to %1").arg(autosavePath()), 5000);
        }
        return;
    }
    const QString message =
        tr("Autosave failed, so the unsaved changes have no backup: %1. AttnScope tries again "
           "every %2 s; saving the session elsewhere keeps them safe.")
            .arg(error)
            .arg(std::max(1, autosaveRetryMs_ / 1000));
    autosaveBanner_->setMessage(message);
    window_->statusBar()->showMessage(message);
}

QString FileController::recoveryQuestion(const Recovery& r) {
    const QString when = QLocale().toString(r.savedAt, QLocale::ShortFormat);
    const QString what = r.document.isEmpty()
                             ? tr("an untitled scene")
                             : tr("%1 (%2)").arg(QFileInfo(r.document).fileName(), r.document);
    QString text = tr("AttnScope did not close normally. Restore the unsaved changes to %1, "
                      "autosaved at %2?")
                       .arg(what, when);
    if (r.count > 1)
        text += tr("\n\n(Autosave %1 of %2 left by windows that did not close; declined ones are "
                   "deleted.)")
                    .arg(r.index)
                    .arg(r.count);
    return text;
}

void FileController::offerRecovery() {
    // Quiet without a prompt: nobody could answer the question.
    if (quiet_ && !recoveryPrompt_) return;
    const std::vector<AutosaveFile::Orphan> orphans = AutosaveFile::claimOrphans();
    const int count = static_cast<int>(orphans.size());
    for (int i = 0; i < count; ++i) {
        const AutosaveFile::Orphan& orphan = orphans[std::size_t(i)];
        const Recovery r{orphan.document, orphan.savedAt, i + 1, count};
        const bool restore =
            recoveryPrompt_ ? recoveryPrompt_(r)
                            : QMessageBox::question(window_, tr("AttnScope"), recoveryQuestion(r),
                                                    QMessageBox::Yes | QMessageBox::No,
                                                    QMessageBox::Yes) == QMessageBox::Yes;
        // Save writes to the session the changes were made to, never to the autosave; a
        // document that was data or tokens stays unsaved until Save asks where. The undo step
        // names the document, never the autosave file it was read from.
        const DocumentFiles as{orphan.session,
                               orphan.session.isEmpty() ? orphan.document : QString()};
        const QString undoText =
            orphan.document.isEmpty()
                ? tr("Restore the autosaved untitled scene")
                : tr("Restore the autosaved %1").arg(QFileInfo(orphan.document).fileName());
        if (restore && open(orphan.path, false, &as, undoText)) {
            // Restored work is not saved anywhere yet: it stays modified.
            window_->scene()->undoStack()->resetClean();
            updateTitle();
            orphan.discard();
            // One window shows one scene: the others stay for the next start (their locks are
            // released with `orphans`).
            const int left = count - i - 1;
            window_->statusBar()->showMessage(
                left == 0 ? tr("Restored the autosaved scene")
                          : tr("Restored the autosaved scene; %1 more will be offered at the next "
                               "start")
                                .arg(left),
                5000);
            return;
        }
        orphan.discard();
    }
}

}  // namespace fileio
