// Another AttnScope instance, for the recovery test's two-process cases: a window that opens
// argv[2] (unless "-"), edits its scene, autosaves, prints its autosave's path and then waits
// on stdin. A line "close" (or the end of stdin) closes the window as a user would; being
// killed is a crash. argv[1] is the application name, so the autosaves share the test's folder.
#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include <cstdio>
#include <iostream>
#include <string>

#include "io/file_controller.hpp"
#include "main_window.hpp"
#include "model/scene.hpp"

ATTN_QTEST_CUSTOM_MAIN(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s APPLICATION-NAME FILE|-\n", argv[0]);
        return 2;
    }
    // The settings of app_test_support's isolateSettings(): test mode, a private settings file.
    QTemporaryDir settings;
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScopeTests"));
    QCoreApplication::setApplicationName(QString::fromLocal8Bit(argv[1]));
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings.path());
    MainWindow w;
    fileio::FileController files(&w);
    files.setQuiet(true);
    const QString document = QString::fromLocal8Bit(argv[2]);
    if (document != QLatin1StringView("-") && !files.openFile(document)) {
        std::fprintf(stderr, "cannot open %s: %s\n", argv[2], qPrintable(files.lastError()));
        return 1;
    }
    attn::SceneSpec spec = w.scene()->spec();
    spec.temperature = 0.5f;
    spec.seed = 4321;
    w.scene()->setSpec(spec, QStringLiteral("edit"));
    files.autosave();
    std::printf("%s\n", qPrintable(files.autosavePath()));
    std::fflush(stdout);
    std::string line;
    while (std::getline(std::cin, line) && line != "close") {
    }
    w.scene()->undoStack()->setClean();  // nothing unsaved: closing does not ask
    w.close();
    return 0;
}
