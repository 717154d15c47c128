// AttnScope — byte counts as the cost lenses print them. GPL-3.0-or-later.
#pragma once

#include <QLocale>
#include <QString>

/// BYTES as "1.5 GB" (powers of 1024, C locale) with DECIMALS digits after the point.
inline QString bytesText(double bytes, int decimals) {
    return QLocale::c().formattedDataSize(qint64(bytes), decimals,
                                          QLocale::DataSizeTraditionalFormat);
}
