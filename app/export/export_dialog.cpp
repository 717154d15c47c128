// AttnScope — the Export dialog: file, format, size and resolution. GPL-3.0-or-later.
#include "export/export_dialog.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

using exporting::Format;

ExportDialog::ExportDialog(const QString& viewName, QSize viewSize, const QString& startPath,
                           QWidget* parent)
    : QDialog(parent),
      path_(new QLineEdit(startPath, this)),
      format_(new QComboBox(this)),
      width_(new QSpinBox(this)),
      height_(new QSpinBox(this)),
      dpi_(new QDoubleSpinBox(this)),
      pixels_(new QLabel(this)) {
    setWindowTitle(tr("Export %1").arg(viewName));
    path_->setObjectName(QStringLiteral("exportPath"));
    setMinimumWidth(520);
    format_->addItem(tr("PNG image"), int(Format::Png));
    format_->addItem(tr("SVG vector drawing"), int(Format::Svg));
    format_->addItem(tr("PDF document"), int(Format::Pdf));
    format_->addItem(tr("Numbers: NumPy .npy"), int(Format::Npy));
    format_->addItem(tr("Numbers: CSV table"), int(Format::Csv));
    format_->setToolTip(
        tr("Figures keep text and axes as vectors (SVG, PDF); the numbers are "
           "the attention weights the view shows"));
    for (QSpinBox* s : {width_, height_}) {
        s->setRange(16, 20000);
        s->setSuffix(tr(" px"));
        s->setToolTip(tr("Layout size in logical pixels (1/96 inch)"));
    }
    width_->setValue(std::max(16, viewSize.width()));
    height_->setValue(std::max(16, viewSize.height()));
    dpi_->setRange(10, 2400);
    dpi_->setDecimals(0);
    dpi_->setValue(exporting::kLogicalDpi * 2);
    dpi_->setToolTip(tr("PNG resolution: the image has size × DPI/96 pixels"));
    auto* browse = new QPushButton(tr("Browse…"), this);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(path_, 1);
    pathRow->addWidget(browse);
    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(width_);
    sizeRow->addWidget(new QLabel(QStringLiteral("×"), this));
    sizeRow->addWidget(height_);
    sizeRow->addStretch();
    auto* form = new QFormLayout;
    // Rows holding a layout get an explicit label with a buddy, so their mnemonic works.
    auto* fileLabel = new QLabel(tr("&File:"), this);
    fileLabel->setBuddy(path_);
    auto* sizeLabel = new QLabel(tr("&Size:"), this);
    sizeLabel->setBuddy(width_);
    form->addRow(fileLabel, pathRow);
    form->addRow(tr("F&ormat:"), format_);
    form->addRow(sizeLabel, sizeRow);
    form->addRow(tr("&Resolution:"), dpi_);
    form->addRow(QString(), pixels_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);

    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(format_, &QComboBox::currentIndexChanged, this, &ExportDialog::onFormatChanged);
    connect(path_, &QLineEdit::editingFinished, this, &ExportDialog::onPathEdited);
    connect(width_, &QSpinBox::valueChanged, this, &ExportDialog::updatePixels);
    connect(height_, &QSpinBox::valueChanged, this, &ExportDialog::updatePixels);
    connect(dpi_, &QDoubleSpinBox::valueChanged, this, &ExportDialog::updatePixels);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    onPathEdited();
    onFormatChanged();
}

QString ExportDialog::path() const {
    return path_->text();
}

exporting::Options ExportDialog::options() const {
    exporting::Options o;
    o.format = Format(format_->currentData().toInt());
    o.size = QSize(width_->value(), height_->value());
    o.dpi = o.format == Format::Png ? dpi_->value() : exporting::kLogicalDpi;
    return o;
}

void ExportDialog::browse() {
    const QString path = QFileDialog::getSaveFileName(
        this, windowTitle(), path_->text(),
        tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf);;NumPy (*.npy);;CSV (*.csv)"));
    if (path.isEmpty()) return;
    path_->setText(path);
    onPathEdited();
}

void ExportDialog::onPathEdited() {
    Format f{};
    if (exporting::formatFromPath(path_->text(), &f))
        format_->setCurrentIndex(format_->findData(int(f)));
}

void ExportDialog::onFormatChanged() {
    const Format f = Format(format_->currentData().toInt());
    // Keep the extension in step with the format.
    QFileInfo info(path_->text());
    if (!path_->text().isEmpty() && info.suffix().toLower() != exporting::extension(f))
        path_->setText(info.dir().filePath(info.completeBaseName() + QLatin1Char('.') +
                                           exporting::extension(f)));
    const bool figure = exporting::isFigure(f);
    width_->setEnabled(figure);
    height_->setEnabled(figure);
    dpi_->setEnabled(f == Format::Png);
    updatePixels();
}

void ExportDialog::updatePixels() {
    const exporting::Options o = options();
    if (o.format == Format::Png)
        pixels_->setText(tr("%1 × %2 pixels")
                             .arg(qRound(o.size.width() * o.dpi / exporting::kLogicalDpi))
                             .arg(qRound(o.size.height() * o.dpi / exporting::kLogicalDpi)));
    else if (exporting::isFigure(o.format))
        pixels_->setText(tr("Vector: text and axes stay sharp at any zoom"));
    else
        pixels_->setText(tr("The numbers the view shows: attention weights, or a lens's series"));
}
