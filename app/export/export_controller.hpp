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
    /// Exports PANEL (a part of a tab with an Export… button of its own, e.g. the Batch tab's
    /// map) through the same dialog, its file named after NAME.
    void exportPanel(QWidget* panel, const QString& name);
    /// Exports `view` to path without asking (figures or numbers by extension); returns an
    /// empty string or the error.
    QString exportView(QWidget* view, const QString& path, const Options& options);

    /// The title a figure of `view` is offered: file, component, layer, focused head.
    QString figureTitle(QWidget* view) const;

  private:
    /// The dialog, then the export of VIEW, offered as the file BASE.EXT; TAB names it.
    void exportWithDialog(QWidget* view, const QString& tab, const QString& base);
    /// The Model view's numbers: every layer, streamed behind a progress dialog with Cancel.
    QString exportAllLayers(const QString& path);

    MainWindow* window_;
};

}  // namespace exporting
