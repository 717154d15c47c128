// AttnScope — the graphical application, started by main() when no subcommand is given.
// GPL-3.0-or-later.
#pragma once

/// Creates the QApplication and the main window on the embedded default scene; returns the exit
/// code. main() may dispatch command-line subcommands before calling it.
int runGui(int argc, char** argv);
