// AttnScope — the headless command line: `attnscope render|compute …`. GPL-3.0-or-later.
#pragma once

#include <QStringList>
#include <functional>
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

/// Runs BODY and returns its exit code; an exception that escaped every other handler becomes
/// one line on `err` and kExitInternal — AttnScope's own messages as they are, a standard
/// library's text (vector::_M_range_check) never. main() runs everything under it.
int guardUnexpected(const std::function<int()>& body, QTextStream& err);

}  // namespace cli
