// AttnScope — one distinct colour per plotted series. GPL-3.0-or-later.
#pragma once

#include <QColor>

/// Distinct line colours (matplotlib's tab10), one per series I, repeating after ten.
inline QColor seriesColour(int i) {
    static const QRgb colours[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                   0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
    return QColor(colours[((i % 10) + 10) % 10]);
}
