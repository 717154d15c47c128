// AttnScope — the autosave of one window, and the autosaves that crashed instances left.
// GPL-3.0-or-later.
#include "io/autosave_file.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <algorithm>
#include <atomic>

#include "attn/files/output_file.hpp"

namespace fileio {
namespace {

/// The process's window count: each FileController autosaves to a file of its own.
std::atomic<int> windowCount{0};

QString lockPathOf(const QString& autosave) {
    return autosave + QStringLiteral(".lock");
}

QString documentPathOf(const QString& autosave) {
    return autosave + QStringLiteral(".document");
}

/// The companion's two lines: the document, then the session ("" where missing).
QStringList readDocument(const QString& autosave) {
    QFile f(documentPathOf(autosave));
    QStringList lines;
    if (f.open(QIODevice::ReadOnly))
        for (int i = 0; i < 2 && !f.atEnd(); ++i)
            lines << QString::fromUtf8(f.readLine(64 * 1024)).trimmed();
    while (lines.size() < 2)
        lines << QString();
    return lines;
}

}  // namespace

QString AutosaveFile::folder() {
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
}

AutosaveFile::AutosaveFile()
    : path_(QDir(folder()).filePath(QStringLiteral("autosave-%1-%2.attnscope")
                                        .arg(QCoreApplication::applicationPid())
                                        .arg(++windowCount))),
      lock_(lockPathOf(path_)) {
    // Only a dead PID makes the lock stale, never its age: a window may live for days.
    lock_.setStaleLockTime(0);
    QDir().mkpath(folder());
    // A file of this name is a previous process's with the same PID: taking the lock says
    // that process is gone, and its autosave is then offered by the next start, not here.
    lock_.tryLock(0);
}

AutosaveFile::~AutosaveFile() = default;

void AutosaveFile::setDocument(const QString& document, const QString& session) const {
    try {
        const QByteArray text = document.toUtf8() + '\n' + session.toUtf8() + '\n';
        attn::io::OutputFile out(QFile::encodeName(documentPathOf(path_)).toStdString());
        out.append(std::string_view(text.constData(), std::size_t(text.size())));
        out.commit();
    } catch (const std::exception&) {
        // Without it a restore is still whole, only unnamed ("an untitled scene").
    }
}

void AutosaveFile::remove() const {
    QFile::remove(path_);
    QFile::remove(documentPathOf(path_));
}

void AutosaveFile::Orphan::discard() const {
    QFile::remove(path);
    QFile::remove(documentPathOf(path));
}

std::vector<AutosaveFile::Orphan> AutosaveFile::claimOrphans() {
    std::vector<Orphan> orphans;
    const QDir dir(folder());
    // "autosave.attnscope" is what versions before per-window autosaves left.
    const QStringList names = dir.entryList(
        {QStringLiteral("autosave-*.attnscope"), QStringLiteral("autosave.attnscope")},
        QDir::Files);
    for (const QString& name : names) {
        Orphan o;
        o.path = dir.filePath(name);
        o.lock = std::make_unique<QLockFile>(lockPathOf(o.path));
        o.lock->setStaleLockTime(0);
        if (!o.lock->tryLock(0)) continue;  // a live instance's: neither offered nor deleted
        const QFileInfo info(o.path);
        if (!info.exists()) continue;  // its owner closed cleanly meanwhile
        o.savedAt = info.lastModified();
        const QStringList origin = readDocument(o.path);
        o.document = origin[0];
        o.session = origin[1];
        orphans.push_back(std::move(o));
    }
    std::sort(orphans.begin(), orphans.end(),
              [](const Orphan& a, const Orphan& b) { return a.savedAt > b.savedAt; });
    return orphans;
}

}  // namespace fileio
