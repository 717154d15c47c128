// AttnScope — export formats by file extension. GPL-3.0-or-later.
#include "export/export_options.hpp"

#include <QFileInfo>

namespace exporting {

bool formatFromPath(const QString& path, Format* format) {
    const QString ext = QFileInfo(path).suffix().toLower();
    for (Format f :
         {Format::Png, Format::Svg, Format::Pdf, Format::Npy, Format::Csv, Format::Npz}) {
        if (ext == extension(f)) {
            *format = f;
            return true;
        }
    }
    return false;
}

QString extension(Format format) {
    switch (format) {
        case Format::Png:
            return QStringLiteral("png");
        case Format::Svg:
            return QStringLiteral("svg");
        case Format::Pdf:
            return QStringLiteral("pdf");
        case Format::Npy:
            return QStringLiteral("npy");
        case Format::Csv:
            return QStringLiteral("csv");
        case Format::Npz:
            return QStringLiteral("npz");
    }
    return {};
}

}  // namespace exporting
