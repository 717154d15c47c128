// AttnScope — tr() for the free functions of namespace fileio. GPL-3.0-or-later.
#pragma once

#include <QCoreApplication>
#include <QString>

namespace fileio {
/// Translates TEXT in the "fileio" context; one definition, so a unity batch sees it once.
inline QString tr(const char* text) {
    return QCoreApplication::translate("fileio", text);
}
}  // namespace fileio
