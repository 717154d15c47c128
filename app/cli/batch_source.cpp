// AttnScope — `attnscope batch`'s inputs. GPL-3.0-or-later.
#include "cli/batch_source.hpp"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>

#include "cli/cli_tr.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output_check.hpp"

namespace cli::batch {

namespace {

/// Adds FILE's name, size and bytes to HASH, read in pieces; false when it cannot be read.
bool hashFile(const QString& path, QCryptographicHash& hash) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return false;
    hash.addData(QFileInfo(path).fileName().toUtf8());
    hash.addData(QByteArray::number(f.size()));
    while (!f.atEnd()) {
        const QByteArray piece = f.read(1 << 20);
        if (piece.isEmpty()) return false;
        hash.addData(piece);
    }
    return true;
}

}  // namespace

int readSource(const QString& model, const QString& dataset, std::int64_t k, std::int64_t n,
               Source* source, QString* error) {
    const QFileInfo info(dataset);
    if (!info.exists()) {
        *error = tr("%1: no such file").arg(dataset);
        return kExitInput;
    }
    if (!info.isFile()) {
        *error = tr("%1: not a regular file (the dataset is a JSON Lines file)").arg(dataset);
        return kExitInput;
    }
    QFile f(dataset);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = tr("%1: cannot read: %2").arg(dataset, f.errorString());
        return kExitInput;
    }
    const QByteArray bytes = f.readAll();
    if (bytes.size() != info.size()) {
        *error = tr("%1: read %2 of its %3 bytes").arg(dataset).arg(bytes.size()).arg(info.size());
        return kExitInput;
    }
    source->datasetHash =
        QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex().toStdString();
    std::int64_t number = 0, index = 0;
    for (const QByteArray& raw : bytes.split('\n')) {
        ++number;
        const QByteArray line = raw.endsWith('\r') ? raw.chopped(1) : raw;
        if (line.trimmed().isEmpty()) continue;
        if (index++ % n == k) source->lines.push_back({number, line});
    }
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const QString& file : modelFolderInputs(model))
        if (QFileInfo(file).isFile() && !hashFile(file, hash)) {
            *error = tr("%1: cannot read the model's file").arg(file);
            return kExitInput;
        }
    source->modelHash = hash.result().toHex().toStdString();
    return kExitOk;
}

}  // namespace cli::batch
