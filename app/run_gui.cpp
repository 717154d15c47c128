// AttnScope — the graphical application. GPL-3.0-or-later.
#include "run_gui.hpp"

#include <QApplication>

#include "main_window.hpp"

int runGui(int argc, char** argv) {
    QApplication app(argc, argv);
    MainWindow window;
    window.show();
    return app.exec();
}
