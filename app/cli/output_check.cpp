// AttnScope — whether a command line's -o may be written. GPL-3.0-or-later.
#include "cli/output_check.hpp"
#include "cli/cli_tr.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include "cli/exit_codes.hpp"
#include "export/output_device.hpp"

namespace cli {
namespace {

/// A safetensors index names each tensor once: a few MB for the largest models.
constexpr qint64 kMaxIndexBytes = 64 << 20;

}  // namespace

QStringList modelFolderInputs(const QString& dir) {
    if (QFileInfo(dir).isFile()) return {dir};  // a GGUF file is the model whole
    // What the families open (config, weights, the tokenizer of each kind); the folder's other
    // files (a README, an earlier run's output) are not read and may be replaced.
    static const char* const kRead[] = {"config.json",
                                        "model.safetensors",
                                        "model.safetensors.index.json",
                                        "tokenizer.json",
                                        "tokenizer_config.json",
                                        "vocab.json",
                                        "merges.txt",
                                        "vocab.txt"};
    const QDir folder(dir);
    QStringList files;
    for (const char* name : kRead)
        files << folder.filePath(QString::fromLatin1(name));
    // The shards are the ones the index names, whatever they are called. Only a regular file of
    // an index's size is read here (a FIFO would block); the model's loader refuses the others.
    QFile index(folder.filePath(QStringLiteral("model.safetensors.index.json")));
    if (QFileInfo(index).isFile() && index.size() <= kMaxIndexBytes &&
        index.open(QIODevice::ReadOnly)) {
        const QJsonObject map = QJsonDocument::fromJson(index.readAll())
                                    .object()
                                    .value(QStringLiteral("weight_map"))
                                    .toObject();
        for (auto it = map.begin(); it != map.end(); ++it)
            if (it.value().isString() && !files.contains(folder.filePath(it.value().toString())))
                files << folder.filePath(it.value().toString());
    }
    return files;
}

QStringList inputFiles(const Request& request, const SceneInput& input) {
    QStringList files;
    if (!request.file.isEmpty()) files << request.file;
    if (input.spec.is_loaded()) files << QString::fromStdString(input.spec.data->source);
    if (!request.model.isEmpty()) files << modelFolderInputs(request.model);
    // A session may run a model of its own.
    if (input.spec.is_model())
        files << modelFolderInputs(
            QFile::decodeName(QByteArray::fromStdString(input.spec.model->dir)));
    return files;
}

int checkOutputFile(const Request& request, const SceneInput& input, QString* error) {
    *error = exporting::checkOutput(request.output, inputFiles(request, input), request.force,
                                    tr("give --force to replace it"));
    return error->isEmpty() ? kExitOk : kExitOutput;
}

}  // namespace cli
