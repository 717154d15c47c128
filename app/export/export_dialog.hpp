// AttnScope — the Export dialog: file, format, size and resolution. GPL-3.0-or-later.
#pragma once

#include <QDialog>

#include "export/export_options.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

/// Asks where and how to export the current view. The format follows the file extension and
/// vice versa; size and DPI apply to figures only (DPI to PNG only: SVG and PDF are vector).
class ExportDialog : public QDialog {
    Q_OBJECT
  public:
    /// startPath: the proposed file (in the last export folder); title: the proposed figure
    /// title (file, component, layer, head), off until the user ticks it.
    ExportDialog(const QString& viewName, QSize viewSize, const QString& startPath,
                 QWidget* parent = nullptr, const QString& title = QString());

    /// Offers only NUMBERS among the numbers formats (e.g. .npz and .csv for the Interventions
    /// tab); a proposed file of another numbers format takes the first of them.
    void setNumberFormats(const QList<exporting::Format>& numbers);

    QString path() const;
    exporting::Options options() const;
    /// Remembers the folder, format and resolution for the next export (QSettings).
    void rememberChoices() const;

    QLineEdit* pathEdit() const { return path_; }
    QComboBox* formatBox() const { return format_; }
    QDoubleSpinBox* dpiBox() const { return dpi_; }
    QCheckBox* titleBox() const { return useTitle_; }
    QLineEdit* titleEdit() const { return title_; }
    QCheckBox* selectionBox() const { return selection_; }

    /// The folder the dialog proposes: the last export's, else the Pictures folder or home —
    /// never the folder of the data being looked at.
    static QString startFolder();

  private:
    void browse();
    void onFormatChanged();
    void onPathEdited();
    /// Enables what applies to format f (size and title for figures, DPI for PNG).
    void enableFor(exporting::Format f);
    void updatePixels();

    QLineEdit* path_;
    QComboBox* format_;
    QSpinBox* width_;
    QSpinBox* height_;
    QDoubleSpinBox* dpi_;
    QLabel* pixels_;
    QCheckBox* useTitle_;
    QLineEdit* title_;
    QCheckBox* selection_;
};
