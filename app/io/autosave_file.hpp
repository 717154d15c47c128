// AttnScope — the autosave of one window, and the autosaves that crashed instances left.
// GPL-3.0-or-later.
#pragma once

#include <QDateTime>
#include <QLockFile>
#include <QString>
#include <memory>
#include <vector>

namespace fileio {

/// One window's autosave: "autosave-PID-N.attnscope" in the application's data folder (N
/// counts the windows of the process), beside a lock (QLockFile, ".lock") held while the window
/// lives and a ".document" naming what the scene was opened from and the session it belongs to.
/// Another instance sees the lock of a live owner and leaves the files alone; a crashed owner's
/// lock is stale (its PID is gone), so the next start may claim it and offer the autosave.
class AutosaveFile {
  public:
    AutosaveFile();
    ~AutosaveFile();
    AutosaveFile(const AutosaveFile&) = delete;
    AutosaveFile& operator=(const AutosaveFile&) = delete;

    /// The session file this window autosaves to.
    const QString& path() const { return path_; }
    /// Writes the autosave's companion: the document shown ("" for an untitled scene) and the
    /// session file the changes belong to ("" when none).
    void setDocument(const QString& document, const QString& session) const;
    /// A clean exit: the autosave and its companion go (the lock goes with this object).
    void remove() const;

    /// The folder of every instance's autosave (QStandardPaths::AppDataLocation).
    static QString folder();

    /// An autosave whose owner is gone, claimed by this process (its lock held) until dropped.
    struct Orphan {
        QString path;      ///< the session file
        QString document;  ///< what its scene was opened from ("" untitled)
        QString session;   ///< the session file the changes belong to ("" none)
        QDateTime savedAt;
        std::unique_ptr<QLockFile> lock;
        /// Deletes the autosave and its companion.
        void discard() const;
    };
    /// Every autosave in folder() whose lock could be taken (its owner crashed, or it predates
    /// per-window autosaves), newest first. Live instances' autosaves are not among them.
    static std::vector<Orphan> claimOrphans();

  private:
    QString path_;
    QLockFile lock_;
};

}  // namespace fileio
