// AttnScope — entry point. GPL-3.0-or-later.
#include <QCoreApplication>

#include "cli/cli.hpp"
#include "run_gui.hpp"

int main(int argc, char** argv) {
    // Set once, before anything reads QSettings (GUI and command line alike).
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScope"));
    QCoreApplication::setApplicationName(QStringLiteral("AttnScope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(ATTNSCOPE_VERSION));
    // Command-line subcommands (`attnscope render|compute …`) are dispatched here, before the
    // GUI starts.
    if (const std::optional<int> code = cli::dispatch(argc, argv)) return *code;
    return runGui(argc, argv);
}
