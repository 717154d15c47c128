// AttnScope — `attnscope batch` and `attnscope merge`: one analysis over a dataset, resumable
// and sharded, and the shards joined (docs/datasets.md). GPL-3.0-or-later.
#pragma once

#include <QStringList>
#include <QTextStream>

namespace cli {

/// Runs `attnscope batch …` (ARGUMENTS as argv); messages go to ERR. Returns the exit code.
int runBatch(const QStringList& arguments, QTextStream& err);
/// The --help section of batch and merge.
QString batchHelp();
/// Runs `attnscope merge SHARD… -o OUT`; messages go to ERR. Returns the exit code.
int runMerge(const QStringList& arguments, QTextStream& err);

}  // namespace cli
