// AttnScope — the Export dialog: file, format, size and resolution. GPL-3.0-or-later.
#pragma once

#include <QDialog>

#include "export/export_options.hpp"

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
    ExportDialog(const QString& viewName, QSize viewSize, const QString& startPath,
                 QWidget* parent = nullptr);

    QString path() const;
    exporting::Options options() const;

  private:
    void browse();
    void onFormatChanged();
    void onPathEdited();
    void updatePixels();

    QLineEdit* path_;
    QComboBox* format_;
    QSpinBox* width_;
    QSpinBox* height_;
    QDoubleSpinBox* dpi_;
    QLabel* pixels_;
};
