// AttnScope — tr() for the free functions of namespace exporting. GPL-3.0-or-later.
#pragma once

#include <QCoreApplication>
#include <QString>

namespace exporting {
/// Translates TEXT in the "exporting" context; one definition, so a unity batch sees it once.
inline QString tr(const char* text) {
    return QCoreApplication::translate("exporting", text);
}
}  // namespace exporting
