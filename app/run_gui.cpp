// AttnScope — the graphical application. GPL-3.0-or-later.
#include "run_gui.hpp"

#include <QApplication>

#include "io/data_io.hpp"
#include "main_window.hpp"

int runGui(int argc, char** argv) {
    QApplication app(argc, argv);
    MainWindow window;
    fileio::attachDataIo(&window, QCoreApplication::arguments().mid(1));  // `attnscope FILE`
    window.show();
    return app.exec();
}
