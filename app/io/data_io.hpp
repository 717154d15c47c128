// AttnScope — plugs data in/out (files, sessions, export, model view) into the main window.
// GPL-3.0-or-later.
#pragma once

#include <QStringList>

class MainWindow;

namespace fileio {

class FileController;

/// Adds to the window: File ▸ Open / Save / Save As / Recent / Load Embeddings / Export, drag
/// and drop, the unsaved-changes prompt, autosave with crash recovery, and the Model tab. Then
/// opens `files` (from `attnscope FILE`; arguments starting with '-' are skipped); the last one
/// wins. Returns the window's file controller.
FileController* attachDataIo(MainWindow* window, const QStringList& files);

}  // namespace fileio
