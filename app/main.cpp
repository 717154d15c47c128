// AttnScope — entry point. GPL-3.0-or-later.
#include <QCoreApplication>

#include <malloc.h>

#include "cli/cli.hpp"
#include "run_gui.hpp"

int main(int argc, char** argv) {
    // Every recomputation allocates the same few large stage matrices (n × n per head). glibc
    // serves blocks above 128 KiB with fresh mmaps, so each recomputation page-faults its whole
    // result in again: at n = 512 with 12 heads that doubled the time of a forward pass. Keep
    // blocks up to 32 MiB in the heap and return memory to the system only past 256 MiB free.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    // Set once, before anything reads QSettings (GUI and command line alike).
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScope"));
    QCoreApplication::setApplicationName(QStringLiteral("AttnScope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(ATTNSCOPE_VERSION));
    // Command-line subcommands (`attnscope render|compute …`) are dispatched here, before the
    // GUI starts.
    if (const std::optional<int> code = cli::dispatch(argc, argv)) return *code;
    return runGui(argc, argv);
}
