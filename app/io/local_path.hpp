// AttnScope — a QString file name as the bytes core's readers open. GPL-3.0-or-later.
#pragma once

#include <QFile>
#include <QString>
#include <string>

namespace fileio {
/// PATH in the local 8-bit encoding, as std::ifstream and core's mapped files expect.
inline std::string localPath(const QString& path) {
    return QFile::encodeName(path).toStdString();
}
}  // namespace fileio
