// AttnScope — tr() for the free functions of namespace cli. GPL-3.0-or-later.
#pragma once

#include <QCoreApplication>
#include <QString>

namespace cli {
/// Translates TEXT in the "cli" context; one definition, so a unity batch sees it once.
inline QString tr(const char* text) {
    return QCoreApplication::translate("cli", text);
}
}  // namespace cli
