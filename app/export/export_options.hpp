// AttnScope — what an export produces: format, size and resolution. GPL-3.0-or-later.
#pragma once

#include <QSize>
#include <QString>

namespace exporting {

/// Output formats: three figure formats and three for the numbers behind a view (.npz: the
/// Interventions tab's named arrays).
enum class Format { Png, Svg, Pdf, Npy, Csv, Npz };

/// A figure's layout size is in logical pixels (1/96 inch); PNG gets size × dpi/96 device pixels
/// and records the DPI, so a larger DPI gives a sharper image of the same layout, as in matplotlib.
struct Options {
    Format format = Format::Png;
    QSize size{1200, 900};
    double dpi = 96.0;
    QString title;           ///< a figure's title line above the view ("" = none)
    bool selection = false;  ///< keep the on-screen selection outlines in the figure
};

/// The format a file name asks for (by extension, case-insensitive); false when unknown.
bool formatFromPath(const QString& path, Format* format);
/// Lower-case extension without the dot ("png").
QString extension(Format format);
/// True for PNG, SVG and PDF.
inline bool isFigure(Format f) {
    return f == Format::Png || f == Format::Svg || f == Format::Pdf;
}

/// Layout size used when the caller asks for none.
inline constexpr QSize kDefaultSize{1200, 900};
/// The reference resolution of a logical pixel.
inline constexpr double kLogicalDpi = 96.0;

}  // namespace exporting
