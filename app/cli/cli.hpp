// AttnScope — the headless command line: `attnscope render|compute …`. GPL-3.0-or-later.
#pragma once

#include <QStringList>
#include <optional>

class QTextStream;

namespace cli {

/// When argv names a subcommand (render, compute, --help, --version), runs it — creating the
/// QApplication itself, on the offscreen platform unless QT_QPA_PLATFORM says otherwise — and
/// returns its exit code; nullopt means "start the GUI".
std::optional<int> dispatch(int argc, char** argv);

/// Runs a subcommand in an existing QApplication (tests). arguments[0] is the program name.
/// Messages go to `err`, --help/--version to `out`. Returns an exit code of exit_codes.hpp.
int run(const QStringList& arguments, QTextStream& out, QTextStream& err);

}  // namespace cli
