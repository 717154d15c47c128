// AttnScope — one window for every open (see single_instance.hpp). GPL-3.0-or-later.
#include "io/single_instance.hpp"

#include <unistd.h>

#include <QDataStream>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QTimer>

#include "io/file_controller.hpp"
#include "main_window.hpp"

namespace fileio {
namespace {

/// What a hand-over starts with: another program on the socket is not obeyed.
const QString kMagic = QStringLiteral("attnscope-open/1");
/// A hand-over is a few paths; anything longer is not one.
constexpr qint64 kMaxMessage = 1 << 20;
/// How long a running window waits between checks while a load it started is still running.
constexpr int kBusyRetryMs = 50;

/// The socket's path on disk: Qt puts a bare name in its temporary folder.
QString socketPath(const QString& serverName) {
    return serverName.contains(QLatin1Char('/')) ? serverName
                                                 : QDir::tempPath() + QLatin1Char('/') + serverName;
}

/// Whether the socket file may be ours: present, not a link, owned by this user. A socket
/// another user planted in a shared folder is neither connected to nor removed.
bool ownSocket(const QString& serverName) {
    const QFileInfo info(socketPath(serverName));
    return info.exists() && !info.isSymLink() && info.ownerId() == ::getuid();
}

/// Files queued for the window: opened one by one, never while a load or the unsaved-changes
/// question is under way (both run event loops in which more files can arrive).
class HandoffQueue : public QObject {
  public:
    HandoffQueue(MainWindow* window, FileController* files)
        : QObject(window), window_(window), files_(files) {}

    void add(const QStringList& paths) {
        // Back to the front: the user just asked for this window from somewhere else.
        window_->setWindowState((window_->windowState() & ~Qt::WindowMinimized) | Qt::WindowActive);
        window_->show();
        window_->raise();
        window_->activateWindow();
        pending_ << paths;
        QTimer::singleShot(0, this, [this] { drain(); });
    }

  private:
    void drain() {
        if (draining_) return;  // the loop below picks the new files up
        if (files_->busy()) {   // a load started elsewhere (the command line, a drop)
            QTimer::singleShot(kBusyRetryMs, this, [this] { drain(); });
            return;
        }
        draining_ = true;
        while (!pending_.isEmpty()) {
            const QString path = pending_.takeFirst();
            if (files_->openReplacing(path)) noteOpened(files_->documentPath());
        }
        draining_ = false;
    }

    MainWindow* window_;
    FileController* files_;
    QStringList pending_;
    bool draining_ = false;
};

}  // namespace

QString instanceServerName() {
    const QString given = qEnvironmentVariable("ATTNSCOPE_INSTANCE");
    if (!given.isEmpty()) return given;
    const QString name = QStringLiteral("attnscope-%1").arg(::getuid());
    const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    if (!runtime.isEmpty() && QFileInfo(runtime).isDir()) return runtime + QLatin1Char('/') + name;
    return name;
}

bool handOff(const QString& serverName, const QStringList& files, int timeoutMs) {
    if (!ownSocket(serverName)) return false;
    const QDeadlineTimer deadline(timeoutMs);
    QLocalSocket socket;
    socket.connectToServer(serverName);
    if (!socket.waitForConnected(timeoutMs)) return false;  // a crashed window's socket
    QByteArray message;
    QDataStream out(&message, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_4);
    out << kMagic << files;
    socket.write(message);
    while (socket.bytesToWrite() > 0)
        if (!socket.waitForBytesWritten(int(deadline.remainingTime()))) return false;
    QByteArray reply;
    while (!reply.contains('\n')) {
        if (!socket.waitForReadyRead(int(deadline.remainingTime()))) return false;
        reply += socket.readAll();
    }
    return reply.startsWith("ok\n");
}

InstanceServer::InstanceServer(QObject* parent) : QObject(parent), server_(new QLocalServer(this)) {
    server_->setSocketOptions(QLocalServer::UserAccessOption);
    connect(server_, &QLocalServer::newConnection, this, [this] {
        while (QLocalSocket* client = server_->nextPendingConnection()) {
            connect(client, &QLocalSocket::readyRead, this, &InstanceServer::readClient);
            connect(client, &QLocalSocket::disconnected, client, &QObject::deleteLater);
        }
    });
}

bool InstanceServer::listen(const QString& serverName) {
    // Decided here rather than from listen()'s error: with UserAccessOption Qt binds in a private
    // folder and renames the socket into place, which would replace a live window's socket.
    const QFileInfo existing(socketPath(serverName));
    if (existing.exists() || existing.isSymLink()) {
        if (!ownSocket(serverName)) return false;  // not this user's to take over
        QLocalSocket probe;
        probe.connectToServer(serverName);
        if (probe.waitForConnected(1000)) return false;  // a live window keeps its socket
        // Nobody answers: the socket of a window that crashed. Take it over.
        QLocalServer::removeServer(serverName);
    }
    return server_->listen(serverName);
}

QString InstanceServer::fullServerName() const {
    return server_->fullServerName();
}

void InstanceServer::readClient() {
    auto* client = qobject_cast<QLocalSocket*>(sender());
    if (!client) return;
    if (client->bytesAvailable() > kMaxMessage) {
        client->abort();
        return;
    }
    QDataStream in(client);
    in.setVersion(QDataStream::Qt_6_4);
    in.startTransaction();
    QString magic;
    QStringList files;
    in >> magic >> files;
    if (!in.commitTransaction()) return;  // the rest is still on its way
    if (magic != kMagic) {
        client->abort();
        return;
    }
    // Acknowledge at once: the other process exits now, whatever opening the files takes.
    client->write("ok\n");
    client->flush();
    Q_EMIT filesRequested(files);
}

void openHandedFiles(InstanceServer* server, MainWindow* window, FileController* files) {
    auto* queue = new HandoffQueue(window, files);
    QObject::connect(server, &InstanceServer::filesRequested, queue, &HandoffQueue::add);
}

void noteOpened(const QString& path) {
    const QString log = qEnvironmentVariable("ATTNSCOPE_OPEN_LOG");
    if (log.isEmpty()) return;
    QFile f(log);
    if (f.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Text))
        f.write(path.toUtf8() + '\n');
}

}  // namespace fileio
