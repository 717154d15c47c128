// AttnScope — File ▸ Export: the current tab as a figure or as numbers. GPL-3.0-or-later.
#pragma once

#include <QObject>

#include "export/export_options.hpp"

class MainWindow;
class QWidget;

namespace exporting {

/// Connects the window's Export action: asks with ExportDialog, then writes the current tab.
class ExportController : public QObject {
    Q_OBJECT
  public:
    explicit ExportController(MainWindow* window);

    /// Exports the current tab through the dialog.
    void exportCurrentView();
    /// Exports `view` to path without asking (figures or numbers by extension); returns an
    /// empty string or the error.
    QString exportView(QWidget* view, const QString& path, const Options& options);

    /// The title a figure of `view` is offered: file, component, layer, focused head.
    QString figureTitle(QWidget* view) const;

  private:
    /// The Model view's numbers: every layer, streamed behind a progress dialog with Cancel.
    QString exportAllLayers(const QString& path);

    MainWindow* window_;
};

}  // namespace exporting
