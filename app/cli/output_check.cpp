// AttnScope — whether a command line's -o may be written. GPL-3.0-or-later.
#include "cli/output_check.hpp"
#include "cli/cli_tr.hpp"

#include <QDir>
#include <QFileInfo>

#include "cli/exit_codes.hpp"
#include "export/output_device.hpp"

namespace cli {

QStringList inputFiles(const Request& request, const SceneInput& input) {
    QStringList files;
    if (!request.file.isEmpty()) files << request.file;
    if (input.spec.is_loaded()) files << QString::fromStdString(input.spec.data->source);
    if (!request.model.isEmpty()) {
        const QDir folder(request.model);
        for (const QString& name : folder.entryList(QDir::Files | QDir::Hidden))
            files << folder.filePath(name);
    }
    return files;
}

int checkOutputFile(const Request& request, const SceneInput& input, QString* error) {
    *error = exporting::checkOutput(request.output, inputFiles(request, input), request.force,
                                    tr("give --force to replace it"));
    return error->isEmpty() ? kExitOk : kExitOutput;
}

}  // namespace cli
