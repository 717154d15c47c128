// AttnScope — one window for every open: a second `attnscope FILE` hands FILE to the running
// window over a per-user local socket instead of starting another window. GPL-3.0-or-later.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

class MainWindow;
class QLocalServer;

namespace fileio {

class FileController;

/// The local socket of this user's running window: $ATTNSCOPE_INSTANCE when set (a name, or a
/// path), else "attnscope-<uid>" in $XDG_RUNTIME_DIR, else in Qt's temporary folder.
QString instanceServerName();

/// Hands `files` (absolute paths) to the window listening on `serverName`; true once that window
/// has acknowledged them. False when nobody listens (no window, or a stale socket left by a
/// crash), when the socket belongs to another user, or when the window does not answer within
/// `timeoutMs`. Blocking: call before the GUI starts.
bool handOff(const QString& serverName, const QStringList& files, int timeoutMs);

/// The running window's end: listens on the socket and announces the files other processes hand
/// over. Only the user can connect (QLocalServer::UserAccessOption).
class InstanceServer : public QObject {
    Q_OBJECT
  public:
    explicit InstanceServer(QObject* parent = nullptr);
    /// Listens on `serverName`. A socket nobody answers on (a crashed instance's) is removed and
    /// taken over; false when another live window already listens, or the socket cannot be
    /// created (the window then simply works alone).
    bool listen(const QString& serverName);
    /// The socket's path while listening.
    QString fullServerName() const;

  Q_SIGNALS:
    /// Another process handed these files over (absolute paths, in its command line's order).
    void filesRequested(const QStringList& files);

  private:
    void readClient();
    QLocalServer* server_;
};

/// Opens what `server` receives in `window` through `files` (File ▸ Open's way: the question
/// about unsaved changes first), raising the window; files arriving while a load or that
/// question is under way wait for it.
void openHandedFiles(InstanceServer* server, MainWindow* window, FileController* files);

/// Appends `path` to the file named by $ATTNSCOPE_OPEN_LOG, when set: the documents a window
/// opened from its command line or from another process, for scripts and tests to follow.
void noteOpened(const QString& path);

}  // namespace fileio
