// AttnScope — whether a command line's -o may be written. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <QStringList>

#include "cli/cli_request.hpp"
#include "cli/scene_input.hpp"

namespace cli {

/// The files a model folder's run reads: config.json, the weights (every shard the index
/// names), the tokenizer files; whether or not each exists.
QStringList modelFolderInputs(const QString& dir);

/// The files a request reads: FILE, the data file a session refers to, what --model reads.
QStringList inputFiles(const Request& request, const SceneInput& input);

/// kExitOk when -o may be written, else kExitOutput with *error saying why: its folder is
/// missing, it is a symbolic link or not a regular file, it is one of the inputs, or it is
/// read-only and --force was not given (see exporting::checkOutput).
int checkOutputFile(const Request& request, const SceneInput& input, QString* error);

}  // namespace cli
