// AttnScope — the graphical application. GPL-3.0-or-later.
#include "run_gui.hpp"

#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <cstdio>

#include "io/data_io.hpp"
#include "io/single_instance.hpp"
#include "main_window.hpp"
#include "model/unexpected_error.hpp"

namespace {

/// How long a second `attnscope FILE` waits for the running window to take the files; it is
/// answered in milliseconds unless that window is stuck.
constexpr int kHandOffTimeoutMs = 5000;

}  // namespace

int runGui(int argc, char** argv) {
    bool newWindow = false;
    QStringList files;
    for (int i = 1; i < argc; ++i) {
        const QString arg = QFile::decodeName(argv[i]);
        if (arg == QLatin1StringView("--new-window"))
            newWindow = true;
        else if (!arg.startsWith(QLatin1Char('-')))
            files << QFileInfo(arg).absoluteFilePath();  // the running window has another cwd
    }
    const QString instance = fileio::instanceServerName();
    // One window for every open: the files go to this user's running window, if there is one.
    // Nothing graphical is started for that, so this process is gone in milliseconds.
    if (!newWindow && !files.isEmpty()) {
        const QCoreApplication handing(argc, argv);  // QLocalSocket wants an application object
        if (fileio::handOff(instance, files, kHandOffTimeoutMs)) return 0;
    }

    // Every event is delivered inside a catch: an error in a slot is a message, not an exit.
    GuardedApplication app(argc, argv);
    MainWindow window;
    fileio::FileController* fileController = fileio::attachDataIo(&window, files);
    // The first window listens for the next ones; --new-window stays out of it either way.
    auto* server = new fileio::InstanceServer(&window);
    if (!newWindow && server->listen(instance))
        fileio::openHandedFiles(server, &window, fileController);
    window.show();
    return app.exec();
}
