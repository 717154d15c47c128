// AttnScope — File ▸ Open Recent's entries. GPL-3.0-or-later.
#include "widgets/recent_labels.hpp"

#include <QDir>
#include <QFileInfo>

namespace {

/// The folders of path, innermost first.
QStringList foldersOf(const QString& path) {
    QStringList parts =
        QDir::fromNativeSeparators(QFileInfo(path).absolutePath()).split(QLatin1Char('/'));
    parts.removeAll(QString());
    std::reverse(parts.begin(), parts.end());
    return parts;
}

/// The last k folders of `folders` (innermost first), written outermost first.
QString tail(const QStringList& folders, qsizetype k) {
    QStringList t = folders.mid(0, k);
    std::reverse(t.begin(), t.end());
    return t.join(QLatin1Char('/'));
}

}  // namespace

QStringList recentFileLabels(const QStringList& paths) {
    QStringList labels;
    for (const QString& path : paths) {
        const QString name = QFileInfo(path).fileName();
        const QStringList mine = foldersOf(path);
        // The fewest trailing folders that no other entry of the same name shares.
        qsizetype need = 0;
        for (const QString& other : paths) {
            if (other == path || QFileInfo(other).fileName() != name) continue;
            const QStringList theirs = foldersOf(other);
            qsizetype k = 1;
            while (k < mine.size() && tail(mine, k) == tail(theirs, k))
                ++k;
            need = std::max(need, k);
        }
        QString label = need == 0 ? name : QStringLiteral("%1 — %2").arg(name, tail(mine, need));
        labels << label.replace(QLatin1Char('&'), QStringLiteral("&&"));
    }
    return labels;
}
