// AttnScope — the Export dialog: file, format, size, resolution, title. GPL-3.0-or-later.
#include "export/export_dialog.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardPaths>

#include "settings_keys.hpp"

using exporting::Format;

ExportDialog::ExportDialog(const QString& viewName, QSize viewSize, const QString& startPath,
                           QWidget* parent, const QString& title)
    : QDialog(parent),
      path_(new QLineEdit(startPath, this)),
      format_(new QComboBox(this)),
      width_(new QSpinBox(this)),
      height_(new QSpinBox(this)),
      dpi_(new QDoubleSpinBox(this)),
      pixels_(new QLabel(this)),
      useTitle_(new QCheckBox(tr("&Title:"), this)),
      title_(new QLineEdit(title, this)),
      selection_(new QCheckBox(tr("Keep the selection &outlines"), this)) {
    setWindowTitle(tr("Export %1").arg(viewName));
    path_->setObjectName(QStringLiteral("exportPath"));
    setMinimumWidth(520);
    format_->addItem(tr("PNG image"), int(Format::Png));
    format_->addItem(tr("SVG vector drawing"), int(Format::Svg));
    format_->addItem(tr("PDF document"), int(Format::Pdf));
    format_->addItem(tr("Numbers: NumPy .npy"), int(Format::Npy));
    format_->addItem(tr("Numbers: CSV table"), int(Format::Csv));
    format_->addItem(tr("Numbers: NumPy .npz (named arrays)"), int(Format::Npz));
    format_->setToolTip(
        tr("Follows the file's extension. Figures keep text and axes as vectors (SVG, PDF); "
           "the numbers are the attention weights the view shows"));
    for (QSpinBox* s : {width_, height_}) {
        s->setRange(16, 20000);
        s->setSuffix(tr(" px"));
        s->setToolTip(tr("Layout size in logical pixels (1/96 inch)"));
    }
    width_->setValue(std::max(16, viewSize.width()));
    height_->setValue(std::max(16, viewSize.height()));
    dpi_->setRange(10, 2400);
    dpi_->setDecimals(0);
    dpi_->setValue(
        QSettings().value(settings_keys::kExportDpi, exporting::kLogicalDpi * 2).toDouble());
    dpi_->setToolTip(tr("PNG resolution: the image has size × DPI/96 pixels"));
    title_->setToolTip(
        tr("A line above the figure, which grows by its height: the file, component, layer and "
           "head shown"));
    title_->setEnabled(false);
    useTitle_->setToolTip(title_->toolTip());
    selection_->setToolTip(
        tr("Figures leave out the on-screen outlines of the selected query and key unless "
           "this is ticked"));
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
    form->addRow(useTitle_, title_);
    form->addRow(QString(), selection_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);

    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(format_, &QComboBox::currentIndexChanged, this, &ExportDialog::onFormatChanged);
    // The format follows the extension as it is typed, not only when the field is left.
    connect(path_, &QLineEdit::textEdited, this, &ExportDialog::onPathEdited);
    connect(width_, &QSpinBox::valueChanged, this, &ExportDialog::updatePixels);
    connect(height_, &QSpinBox::valueChanged, this, &ExportDialog::updatePixels);
    connect(dpi_, &QDoubleSpinBox::valueChanged, this, &ExportDialog::updatePixels);
    connect(useTitle_, &QCheckBox::toggled, title_, &QWidget::setEnabled);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    onPathEdited();
    onFormatChanged();
}

QString ExportDialog::startFolder() {
    const QString last = QSettings().value(settings_keys::kLastExportDirectory).toString();
    if (!last.isEmpty() && QFileInfo(last).isDir()) return last;
    const QString pictures = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    return !pictures.isEmpty() && QFileInfo(pictures).isDir() ? pictures : QDir::homePath();
}

void ExportDialog::setNumberFormats(const QList<Format>& numbers) {
    for (int i = format_->count() - 1; i >= 0; --i) {
        const Format f = Format(format_->itemData(i).toInt());
        if (!exporting::isFigure(f) && !numbers.contains(f)) format_->removeItem(i);
    }
    Format typed{};
    if (!numbers.isEmpty() && exporting::formatFromPath(path_->text(), &typed) &&
        !exporting::isFigure(typed) && !numbers.contains(typed)) {
        format_->setCurrentIndex(format_->findData(int(numbers.front())));
        onFormatChanged();
    }
}

QString ExportDialog::path() const {
    return path_->text();
}

exporting::Options ExportDialog::options() const {
    exporting::Options o;
    o.format = Format(format_->currentData().toInt());
    // The extension has the last word, whatever the box shows.
    if (Format typed{}; exporting::formatFromPath(path_->text(), &typed)) o.format = typed;
    o.size = QSize(width_->value(), height_->value());
    o.dpi = o.format == Format::Png ? dpi_->value() : exporting::kLogicalDpi;
    o.title = useTitle_->isChecked() ? title_->text().trimmed() : QString();
    o.selection = selection_->isChecked();
    return o;
}

void ExportDialog::rememberChoices() const {
    QSettings settings;
    settings.setValue(settings_keys::kLastExportDirectory, QFileInfo(path_->text()).absolutePath());
    settings.setValue(settings_keys::kExportDpi, dpi_->value());
}

void ExportDialog::browse() {
    const QString path = QFileDialog::getSaveFileName(
        this, windowTitle(), path_->text(),
        tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf);;NumPy (*.npy *.npz);;CSV (*.csv)"));
    if (path.isEmpty()) return;
    path_->setText(path);
    onPathEdited();
}

void ExportDialog::onPathEdited() {
    Format f{};
    if (!exporting::formatFromPath(path_->text(), &f)) return;
    // Only the box follows: rewriting the path's extension while it is typed would fight the
    // user.
    const QSignalBlocker block(format_);
    format_->setCurrentIndex(format_->findData(int(f)));
    enableFor(f);
}

void ExportDialog::onFormatChanged() {
    const Format f = Format(format_->currentData().toInt());
    // Keep the extension in step with a format picked in the box.
    QFileInfo info(path_->text());
    if (!path_->text().isEmpty() && info.suffix().toLower() != exporting::extension(f))
        path_->setText(info.dir().filePath(info.completeBaseName() + QLatin1Char('.') +
                                           exporting::extension(f)));
    enableFor(f);
}

void ExportDialog::enableFor(Format f) {
    const bool figure = exporting::isFigure(f);
    width_->setEnabled(figure);
    height_->setEnabled(figure);
    dpi_->setEnabled(f == Format::Png);
    useTitle_->setEnabled(figure);
    selection_->setEnabled(figure);
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
