// AttnScope — `attnscope generate`: tokens from a model folder, with their log-probabilities and
// the final sequence's attention. GPL-3.0-or-later.
#pragma once

#include <QString>
#include <QStringList>

class QTextStream;

namespace cli {

/// Parses and runs `attnscope generate …` (arguments[1] is "generate"); messages go to ERR.
/// Returns an exit code of exit_codes.hpp.
int runGenerate(const QStringList& arguments, QTextStream& out, QTextStream& err);

/// The generate part of --help.
QString generateHelp();

}  // namespace cli
